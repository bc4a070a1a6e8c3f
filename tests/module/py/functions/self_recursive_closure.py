import ccloudpickle as cp
def make():
    def fact(n):
        return 1 if n <= 1 else n * fact(n - 1)
    return fact
for proto in (2, 5):
    f = cp.loads(cp.dumps(make(), protocol=proto))
    assert f(6) == 720
    assert f.__closure__[0].cell_contents is f
