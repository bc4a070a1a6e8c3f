import ccloudpickle as cp
for proto in (2, 5):
    f = cp.loads(cp.dumps(lambda x, y=2: x * y, protocol=proto))
    assert f(3) == 6 and f(3, y=4) == 12
    assert f.__name__ == '<lambda>'
