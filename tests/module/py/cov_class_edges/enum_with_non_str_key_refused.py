import ccloudpickle as cp, enum, gc, pickle
class Color(enum.Enum):
    RED = 1
    BLUE = 2
real = [d for d in gc.get_referents(Color.__dict__)
        if isinstance(d, dict)]
assert len(real) == 1
real[0][5] = 'five'
for kw in ({}, {'compat': 'cloudpickle'}):
    try:
        cp.dumps(Color, **kw)
    except pickle.PicklingError as e:
        assert ("has keys that are not strings, which an enum's "
            "pickle cannot carry") in str(e), e
        assert repr(Color) in str(e), e
    else:
        raise AssertionError('pickled %r' % (kw,))
del real[0][5]
back = cp.loads(cp.dumps(Color))
assert [m.name for m in back] == ['RED', 'BLUE']
