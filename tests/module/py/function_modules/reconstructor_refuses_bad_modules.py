import math, json
def z(x=1):
    return x
(a,) = made(cp.dumps(z))
code = a[0]
F = cp._function_make
def err(exc, *args):
    sys.modules.pop('colorsys', None)
    try:
        F(*args)
    except exc as e:
        assert 'colorsys' not in sys.modules, args
        return str(e)
    raise AssertionError(args)
def base():
    return {'__name__': 'x'}
m = err(cp.ReconstructorValueError, code, base(), None, {},
        ('colorsys', 'colorsys', 'm'))
assert 'argument 5 (modules)' in m and 'pairs' in m, m
m = err(cp.ReconstructorTypeError, code, base(), None, {},
        ('m', 'colorsys', 'n', 1))
assert 'item 3 must be str, not int' in m, m
class S(str):
    def __hash__(self):
        raise AssertionError('ran')
m = err(cp.ReconstructorTypeError, code, base(), None, {},
        ('m', 'colorsys', S('n'), 'math'))
assert 'item 2 must be str' in m, m
m = err(cp.ReconstructorTypeError, code, base(), None, {},
        ['m', 'colorsys'])
assert 'must be tuple, not list' in m, m
err(cp.ReconstructorTypeError, code, base(), None, {}, (), ())
err(ModuleNotFoundError, code, base(), None, {},
    ('m', 'no_such_module_fm'))
err(cp.UnpicklingError, code, vars(json), None, {},
    ('planted', 'colorsys'))
assert 'planted' not in vars(json)
g = F(code, base(), None, {}, ('mm', 'math', 'm2', 'math'))
assert g.__globals__['mm'] is math is g.__globals__['m2']
assert g(5) == 5
