import ccloudpickle as cp, types
E = cp.ReconstructorTypeError
class D(dict):
    pass
for args in [(1, {}), ('m', 1), ('m', D()), ('m',), ()]:
    try:
        cp._module_new(*args)
    except E:
        pass
    else:
        raise AssertionError(args)
for args in [(1, {}), ({}, {}), (types.ModuleType('x'), 1)]:
    try:
        cp._module_fill(*args)
    except E:
        pass
    else:
        raise AssertionError(args)
ns = {'X': 1, '__name__': 'kept'}
m = cp._module_new('given', ns)
assert vars(m) is ns and m.X == 1 and m.__name__ == 'kept'
assert m.__doc__ is None and '__builtins__' in ns
cp._module_fill(m, {'Y': 2})
assert ns['Y'] == 2
