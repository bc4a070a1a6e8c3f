import ccloudpickle as cp, pickle
try:
    cp._module_fill(5, {'a': 1})
except cp.ReconstructorTypeError as e:
    assert isinstance(e, pickle.UnpicklingError)
    assert str(e) == '_module_fill() argument 1 (module) must be '\
        'a module, not int', str(e)
else:
    raise AssertionError('filled an int')
