import ccloudpickle as cp, copyreg, io
class Foo:
    pass
before = dict(cp.Pickler.dispatch_table)
p = cp.Pickler(io.BytesIO())
p.dispatch_table[Foo] = lambda o: (str, ('reduced',))
p.dispatch_table[property] = lambda o: (str, ('reduced',))
assert Foo not in cp.Pickler.dispatch_table
assert dict(cp.Pickler.dispatch_table) == before
assert Foo not in copyreg.dispatch_table
q = cp.Pickler(io.BytesIO())
assert Foo not in q.dispatch_table
assert q.dispatch_table is not p.dispatch_table
assert isinstance(cp.loads(cp.dumps(Foo())), Foo)
assert isinstance(cp.loads(cp.dumps(property())), property)
buf = io.BytesIO()
cp.Pickler(buf).dump([Foo(), property()])
foo, prop = cp.loads(buf.getvalue())
assert isinstance(foo, Foo) and isinstance(prop, property)
