import cloudpickle, ccloudpickle as cp, enum, math, pickle
assert cloudpickle.__version__.startswith('2.2')
k = 4
def f(x):
    return math.floor(x) + k
class C:
    def m(self):
        return 7
class E(enum.Enum):
    A = 1
data = cloudpickle.dumps([f, lambda: k, C, E, E.A])
g, lam, C2, E2, a = cp.loads(data, allow=[])
assert g(2.5) == 6 and lam() == 4 and C2().m() == 7
assert a is E2.A
try:
    cp.loads(data, deny=['cloudpickle'])
except pickle.UnpicklingError as e:
    assert 'cloudpickle.cloudpickle._make_function' in str(e)
else:
    raise AssertionError('deny=[cloudpickle] not enforced')
print('ok')
