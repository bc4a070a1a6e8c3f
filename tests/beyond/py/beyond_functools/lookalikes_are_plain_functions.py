import ccloudpickle as cp, functools
def wrapper(x):
    return x
wrapper.registry = {object: wrapper}
wrapper.register = wrapper.__wrapped__ = wrapper
data = cp.dumps(wrapper)
assert b'_singledispatch' not in data
w = cp.loads(data)
assert w(3) == 3 and w.registry[object] is w
# a function calling a dispatcher: the dispatcher alone
@functools.singledispatch
def d(x):
    return 1
def outer(x):
    return d(x) + 1
data = cp.dumps(outer)
assert data.count(b'_singledispatch_new') == 1
assert cp.loads(data)(0) == 2
