import ccloudpickle as cp, copyreg, io
class Special:
    pass
buf = io.BytesIO()
p = cp.Pickler(buf)
table = copyreg.dispatch_table.copy()
table[Special] = lambda s: (str, ('instance table',))
p.dispatch_table = table
assert p.dispatch_table is table
p.dump(Special())
assert cp.loads(buf.getvalue()) == 'instance table'
del p.dispatch_table
assert p.dispatch_table.maps[1:] == cp.Pickler.dispatch_table.maps
