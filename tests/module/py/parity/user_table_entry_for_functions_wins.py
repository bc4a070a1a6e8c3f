import ccloudpickle as cp, io, types
buf = io.BytesIO()
p = cp.Pickler(buf)
p.dispatch_table = {types.FunctionType: lambda f: (str, (f.__name__,))}
def named():
    pass
p.dump(named)
assert cp.loads(buf.getvalue()) == 'named'
