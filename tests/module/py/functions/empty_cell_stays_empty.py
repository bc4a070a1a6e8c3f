import ccloudpickle as cp
def make():
    if False:
        late = 1
    def f():
        return late
    return f
for proto in (2, 5):
    f = cp.loads(cp.dumps(make(), protocol=proto))
    try:
        f.__closure__[0].cell_contents
        raise AssertionError('cell is not empty')
    except ValueError:
        pass
    try:
        f()
        raise AssertionError('no NameError')
    except NameError as e:
        assert 'late' in str(e)
