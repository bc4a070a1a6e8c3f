import ccloudpickle as cp, weakref
class C:
    pass
first = cp.dumps(C)
cbs = [w.__callback__ for w in weakref.getweakrefs(C)
       if type(w.__callback__).__name__ == '_TrackerCallback']
assert len(cbs) == 1, cbs
cb = cbs[0]
for args in ((), (1, 2)):
    try:
        cb(*args)
    except TypeError as e:
        assert 'callback expected 1 argument' in str(e), e
    else:
        raise AssertionError(args)
assert cb(weakref.ref(C)) is None
assert cb(None) is None
assert cp.loads(first) is C
assert cp.dumps(C) == first
