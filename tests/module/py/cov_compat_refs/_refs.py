import ccloudpickle as cp, io
class C:
    x = 1
p = cp.Pickler(io.BytesIO(), compat='cloudpickle')
rv = p.reducer_override(C)
ref = rv[0]
