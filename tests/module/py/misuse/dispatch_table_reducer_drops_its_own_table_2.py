import ccloudpickle as cp, functools, io, weakref
class Foo:
    pass
alive = []
def reduce_foo(obj):
    p.dispatch_table.maps[0].clear()
    alive.append(ref() is not None)
    return (str, ('foo',))
buf = io.BytesIO()
p = cp.Pickler(buf)
p.dispatch_table[Foo] = functools.partial(reduce_foo)
ref = weakref.ref(p.dispatch_table[Foo])
p.dump(Foo())
assert cp.loads(buf.getvalue()) == 'foo'
assert alive == [True]
assert ref() is None
