import ccloudpickle as cp, pickle
assert issubclass(cp.ReconstructorTypeError, TypeError)
assert issubclass(cp.ReconstructorValueError, ValueError)
for e in (cp.ReconstructorTypeError, cp.ReconstructorValueError):
    assert issubclass(e, pickle.UnpicklingError)
    assert e.__module__ == 'ccloudpickle'
try:
    cp._function_new(1, {}, None)
except TypeError as e:
    assert isinstance(e, pickle.UnpicklingError)
def outer():
    x = 1
    return lambda: x
try:
    cp._function_new(outer().__code__, {}, None)
except ValueError as e:
    assert isinstance(e, pickle.UnpicklingError)
# Their instances pickle (by reference to their class).
e = cp.loads(pickle.dumps(cp.ReconstructorValueError('m')))
assert type(e) is cp.ReconstructorValueError
