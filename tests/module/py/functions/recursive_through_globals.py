import ccloudpickle as cp
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
for proto in (2, 5):
    f = cp.loads(cp.dumps(fib, protocol=proto))
    assert f(10) == 55 and f.__globals__['fib'] is f
