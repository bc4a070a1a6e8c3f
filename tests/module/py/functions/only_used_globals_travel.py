import ccloudpickle as cp
USED = 10
NESTED = 5
WRITTEN = 0
BIG = list(range(100000))
def f(x):
    global WRITTEN
    WRITTEN = x
    g = lambda: NESTED
    return x + USED + g()
data = cp.dumps(f)
assert len(data) < 2000, len(data)
g = cp.loads(data)
assert g(1) == 16
assert g.__globals__['WRITTEN'] == 1 and WRITTEN == 0
assert 'BIG' not in g.__globals__
assert {'USED', 'NESTED', 'WRITTEN'} <= set(g.__globals__)
assert g.__globals__ is not globals()
