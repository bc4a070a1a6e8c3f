import ccloudpickle as cp, pickle
x = []
for _ in range(600000):
    x = [x]
try:
    cp.dumps(x)
    raise AssertionError('no error')
except pickle.PicklingError as e:
    assert 'recursion' in str(e)
    assert isinstance(e.__cause__, RecursionError)
