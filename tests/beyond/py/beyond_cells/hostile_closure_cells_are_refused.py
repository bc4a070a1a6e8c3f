import ccloudpickle as cp
def outer():
    a = b = 1
    return lambda: a + b
code = outer().__code__
def fresh():
    return cp._function_new(code, {}, 2)
E = cp.ReconstructorTypeError, cp.ReconstructorValueError
for bad in [(1,), (None, None, None), [None, None], (None, 5),
            (None, 'cell')]:
    try:
        cp._function_fill(fresh(), {'__closure_cells__': bad})
    except E:
        pass
    else:
        raise AssertionError(bad)
f = fresh()
c = cp._make_cell(40)
cp._function_fill(f, {'__closure__': (cp._empty_cell_value, 2),
                      '__closure_cells__': (c, None)})
assert f() == 42 and f.__closure__[0] is c
