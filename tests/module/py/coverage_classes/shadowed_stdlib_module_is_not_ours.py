import sys, types, weakref, ccloudpickle, dataclasses
class Item:
    pass
keep = Item()
ws = weakref.WeakSet([keep])
real = sys.modules['_weakrefset']
sys.modules['_weakrefset'] = types.ModuleType('_weakrefset')
try:
    assert ccloudpickle.loads(ccloudpickle.dumps(42)) == 42
    m = ccloudpickle.loads(ccloudpickle.dumps(dataclasses.MISSING))
    assert m is dataclasses.MISSING
    fake = types.ModuleType('_weakrefset')
    fake.WeakSet = 'not a class'
    sys.modules['_weakrefset'] = fake
    assert ccloudpickle.loads(ccloudpickle.dumps([1, 2])) == [1, 2]
    m = ccloudpickle.loads(ccloudpickle.dumps(dataclasses.MISSING))
    assert m is dataclasses.MISSING
finally:
    sys.modules['_weakrefset'] = real
data = ccloudpickle.dumps([ws, keep])
assert b'_make_skeleton_class' in data  # Item, by value
assert data.count(b'_make_skeleton_class') == 1
out, k = ccloudpickle.loads(data)
assert type(out) is weakref.WeakSet and k in out and len(out) == 1
