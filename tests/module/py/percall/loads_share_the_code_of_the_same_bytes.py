import ccloudpickle as cp
def make(k):
    def f(x):
        return x * k
    return f
data = cp.dumps(make(3))
f1, f2 = cp.loads(data), cp.loads(data)
# One code object, as for two closures of one def; the
# functions, cells and values stay apart.
assert f1 is not f2 and f1.__code__ is f2.__code__
assert f1.__closure__[0] is not f2.__closure__[0]
assert f1(2) == f2(2) == 6
g = cp.loads(cp.dumps(make(4)))
assert g(2) == 8
h = cp.loads(cp.dumps(lambda x: x - 1))
assert h.__code__ is not f1.__code__ and h(2) == 1
