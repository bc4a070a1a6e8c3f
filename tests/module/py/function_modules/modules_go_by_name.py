import math, math as m2
import os.path as osp
import collections.abc as cabc
SCALE = 2
def f(x):
    return (math.floor(x) + len(osp.join('a', 'b')) + m2.ceil(x)
            + isinstance(x, cabc.Hashable) + SCALE)
data = cp.dumps(f)
assert 'subimport' not in names(data), names(data)
(a,) = made(data)
assert len(a) == 5, a
pairs = sorted(zip(a[4][::2], a[4][1::2]))
assert pairs == [('cabc', 'collections.abc'), ('m2', 'math'),
                 ('math', 'math'), ('osp', osp.__name__)], pairs
assert a[3]['__globals__'] == {'SCALE': 2}, a[3]
for load in (cp.loads, pickle.loads):
    g = load(data)
    assert g is not f and g(2.5) == f(2.5)
    for k in ('math', 'm2', 'osp', 'cabc'):
        assert g.__globals__[k] is f.__globals__[k], k
# only modules among the globals: no __globals__ key left
def h(x):
    return math.floor(x)
(a,) = made(cp.dumps(h))
assert a[4] == ('math', 'math') and '__globals__' not in a[3]
assert cp.loads(cp.dumps(h))(2.5) == 2
# recursion through the globals: the split form, whose
# globals keep the module
def rec(n):
    return rec(n - 1) if n else math.floor(2.5)
data = cp.dumps(rec)
assert '_function_make' not in names(data) and not made(data)
assert cp.loads(data)(3) == 2 and pickle.loads(data)(2) == 2
# leaf globals, a closure leading back: the split form
# still, its globals with the module
def outer():
    def inner(n):
        return math.floor(n) + len(helpers)
    helpers = [inner]
    return inner
data = cp.dumps(outer())
assert '_function_make' not in names(data) and not made(data)
assert cp.loads(data)(2.5) == 3 and pickle.loads(data)(2.5) == 3
# no module: four arguments, as before
def k(x):
    return x + SCALE
(a,) = made(cp.dumps(k))
assert len(a) == 4, a
