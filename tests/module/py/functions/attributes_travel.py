import ccloudpickle as cp
def f(a, b: int = 2, *args, c: str = 'c', **kw) -> tuple:
    'First line.\n\n    More.'
    return a, b, c
f.custom = {'k': 1}
f.__qualname__ = 'Renamed.f'
f.__module__ = 'somewhere'
for proto in (2, 5):
    g = cp.loads(cp.dumps(f, protocol=proto))
    assert g(1) == (1, 2, 'c') and g(1, 3, c='d') == (1, 3, 'd')
    assert g.__defaults__ == (2,)
    assert g.__kwdefaults__ == {'c': 'c'}
    assert g.__annotations__ == {'b': int, 'c': str, 'return': tuple}
    assert g.__doc__ == f.__doc__
    assert g.custom == {'k': 1}
    assert g.__qualname__ == 'Renamed.f' and g.__name__ == 'f'
    assert g.__module__ == 'somewhere'
