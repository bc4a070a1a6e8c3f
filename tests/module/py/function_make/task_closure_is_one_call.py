SCALE = 2.5
def make(a):
    def task(x, y=1, *, z=(1, 'b', None)):
        return math.floor((x + a) * SCALE) + y + len(z)
    return task
t = make(3)
t.__module__ = '__main__'
assert form(t) == 'make'
check(t, 4)
def ann(x: int, y: str = 'a') -> float:
    return float(x)
ann.attr = {'k': [1, 2.0, b'x', None, True, math.pi]}
assert form(ann) == 'make'
check(ann, 2)
assert cp.loads(cp.dumps(ann)).attr == ann.attr
assert cp.loads(cp.dumps(ann)).__annotations__ == ann.__annotations__
from os.path import join
from collections import OrderedDict
def uses_names(a, k=OrderedDict, j=join):
    return k([(j(a, 'b'), 1)])
assert form(uses_names) == 'make'
check(uses_names, 'a')
def uses_builtin_fn(a):
    return join(a, 'b')
assert form(uses_builtin_fn) == 'make'
check(uses_builtin_fn, 'a')
# a function with an empty state has no call to fill it
assert form(lambda: 0) in ('bare', 'make')
assert cp.loads(cp.dumps(lambda: 7))() == 7
