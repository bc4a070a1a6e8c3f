import ccloudpickle as cp, collections, copyreg, types
t = cp.Pickler.dispatch_table
assert isinstance(t, collections.ChainMap)
assert t.maps[1] is copyreg.dispatch_table
assert types.CodeType in t and property in t
assert cp.CloudPickler.dispatch is t
assert t[types.CodeType]((lambda: 1).__code__)[0].__name__ == '_code_unmarshal'
import io
p = cp.Pickler(io.BytesIO())
# An instance reads its own view of it (test_dispatch_table.c).
assert p.dispatch_table.maps[1:] == t.maps
assert types.CodeType in cp.Pickler._dispatch_table
