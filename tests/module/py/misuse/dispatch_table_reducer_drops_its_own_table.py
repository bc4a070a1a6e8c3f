import ccloudpickle as cp, functools, io, types, weakref
alive = []
def reduce_function(f):
    p.dispatch_table = {}
    alive.append(ref() is not None)
    return (str, (f.__name__,))
def named():
    pass
buf = io.BytesIO()
p = cp.Pickler(buf)
p.dispatch_table = {types.FunctionType: functools.partial(reduce_function)}
ref = weakref.ref(p.dispatch_table[types.FunctionType])
p.dump(named)
assert cp.loads(buf.getvalue()) == 'named'
assert alive == [True], 'reducer freed during its own call'
assert ref() is None, 'reducer leaked'
