import ccloudpickle as cp, copyreg, io, types
class Special:
    pass
class MyPickler(cp.Pickler):
    dispatch_table = copyreg.dispatch_table.copy()
    dispatch_table[Special] = lambda s: (int, (7,))
buf = io.BytesIO()
MyPickler(buf).dump([Special(), (lambda: 1).__code__, types.MappingProxyType({})])
seven, code, mp = cp.loads(buf.getvalue())
assert seven == 7 and isinstance(code, types.CodeType)
assert isinstance(mp, types.MappingProxyType)
