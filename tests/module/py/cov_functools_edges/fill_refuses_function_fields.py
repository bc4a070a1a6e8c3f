for key in ('__code__', '__globals__', '__closure__',
            '__defaults__', '__kwdefaults__', '__dict__'):
    try:
        cp._singledispatch_fill(sd, ((), {key: 1}))
    except cp.ReconstructorValueError as e:
        assert str(e) == '_singledispatch_fill() argument 2 '\
            '(state) item 1 may not set ' + key, str(e)
    else:
        raise AssertionError(key)
assert sd(1) == 'int' and sd.__code__.co_name == 'wrapper'
