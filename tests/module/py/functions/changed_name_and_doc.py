import ccloudpickle as cp
def f():
    'doc'
    return 1
f.__name__ = 'other'
f.__doc__ = None
g = cp.loads(cp.dumps(f))
assert g.__name__ == 'other' and g.__doc__ is None
h = cp.loads(cp.dumps(lambda: 'not a docstring'))
assert h.__doc__ is None and h() == 'not a docstring'
