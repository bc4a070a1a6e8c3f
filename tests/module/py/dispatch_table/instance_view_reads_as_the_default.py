import ccloudpickle as cp, collections, copyreg, io, types
t = cp.Pickler.dispatch_table
p = cp.Pickler(io.BytesIO())
v = p.dispatch_table
assert isinstance(v, collections.ChainMap)
assert v.maps[0] == {} and v.maps[1:] == t.maps
assert all(a is b for a, b in zip(v.maps[1:], t.maps))
assert dict(v) == dict(t)
assert v[types.CodeType] is t[types.CodeType]
# Deleting the entry, or the table, goes back to the default.
class Foo:
    pass
buf = io.BytesIO()
p = cp.Pickler(buf)
p.dispatch_table[Foo] = lambda o: (str, ('x',))
del p.dispatch_table[Foo]
p.dump(Foo())
assert isinstance(cp.loads(buf.getvalue()), Foo)
buf = io.BytesIO()
p = cp.Pickler(buf)
p.dispatch_table[Foo] = lambda o: (str, ('x',))
del p.dispatch_table
assert Foo not in p.dispatch_table
p.dump(Foo())
assert isinstance(cp.loads(buf.getvalue()), Foo)
# Assigning the view back to itself keeps it.
p.dispatch_table[Foo] = lambda o: (str, ('y',))
p.dispatch_table = p.dispatch_table
buf = io.BytesIO()
p.__init__(buf)
p.dump(Foo())
assert cp.loads(buf.getvalue()) == 'y'
