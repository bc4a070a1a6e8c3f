import ccloudpickle as cp, copyreg, io
class Foo:
    pass
buf = io.BytesIO()
p = cp.Pickler(buf)
p.dispatch_table[Foo] = lambda o: (str, ('view',))
table = copyreg.dispatch_table.copy()
table[Foo] = lambda o: (str, ('set',))
p.dispatch_table = table
assert p.dispatch_table is table
p.dump(Foo())
assert cp.loads(buf.getvalue()) == 'set'
