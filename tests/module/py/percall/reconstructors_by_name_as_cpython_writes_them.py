import ccloudpickle as cp, io, pickle, types
for f in (cp._function_new, cp._function_make, cp.subimport,
          cp._code_unmarshal, cp._function_fill):
    for proto in (2, 4, 5):
        assert cp.dumps(f, protocol=proto) == pickle.dumps(f, proto), f
    assert cp.loads(cp.dumps(f)) is f
class P(cp.Pickler):
    dispatch_table = {types.BuiltinFunctionType:
                      lambda f: (str, ('by the table',))}
buf = io.BytesIO()
P(buf).dump(cp.subimport)
assert pickle.loads(buf.getvalue()) == 'by the table'
# a name the pickle already holds as an equal str: written
# again, as CPython's own path writes it
obj = ['subimport', cp.subimport, '_function_make']
assert cp.dumps(obj) == pickle.dumps(obj, 5)
# copyreg's table, consulted by CPython after our reducer
import copyreg
copyreg.dispatch_table[types.BuiltinFunctionType] = (
    lambda f: (str, ('by copyreg',)))
try:
    assert cp.loads(cp.dumps(cp.subimport)) == 'by copyreg'
finally:
    del copyreg.dispatch_table[types.BuiltinFunctionType]
