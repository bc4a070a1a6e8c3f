import ccloudpickle as cp
def outer(a, b):
    def inner(x):
        return (a, b, x)
    return inner
for proto in (2, 5):
    f = cp.loads(cp.dumps(outer([1], 'b'), protocol=proto))
    assert f(3) == ([1], 'b', 3)
    assert [c.cell_contents for c in f.__closure__] == [[1], 'b']
    assert f.__code__.co_freevars == ('a', 'b')
