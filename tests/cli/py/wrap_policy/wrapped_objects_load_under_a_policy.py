import ccloudpickle as cp, pickle
rb = '_ccloudpickle_engines._rebuild'
f = cp.wrap(lambda x: x + 1)
g = cp.loads(pickle.dumps(f), allow=[rb])
assert g(1) == 2 and type(g) is type(f)
h = cp.loads(pickle.dumps(cp.wrap(lambda: 7, keep_wrapper=False)),
             deny=['os'], allow=[rb])
assert h() == 7 and type(h).__name__ == 'function'
import os
w = cp.wrap(os.getcwd)
assert cp.loads(pickle.dumps(w), allow=[rb, 'posix.getcwd']).__wrapped__ is os.getcwd
try:
    cp.loads(pickle.dumps(w), allow=[rb])
except cp.PolicyError as e:
    assert 'posix.getcwd' in str(e), str(e)
else:
    raise AssertionError('the inner import was not policed')
assert pickle.loads(pickle.dumps(f))(2) == 3
import _ccloudpickle_engines as E
class Spy:
    def __reduce__(self):
        return (E._rebuild, (pickle.dumps(0), False))
assert cp._load_policy.get(None) is None
assert cp.loads(pickle.dumps([Spy()]), allow=[rb]) == [0]
assert cp._load_policy.get(None) is None
