import ccloudpickle as c
f = c._make_function((lambda: 1).__code__, {}, None, None, None)
assert c._function_setstate(f, ({}, {'__closure__': ()})) is None
assert f() == 1
# The 101-byte stock-format pickle that crashed the loader.
data = (b'\x80\x04\x8c\x17cloudpickle.cloudpickle\x94\x8c\x12'
        b'_function_setstate\x94\x93\x94\x8c\x07os.path\x94\x8c\x08'
        b'basename\x94\x93\x94}\x94}\x94\x8c\x0b__closure__\x94)s'
        b'\x86\x94\x86\x94R\x94.')
# os.path.basename is no function a load made: refused
try:
    c.loads(data)
except c.ReconstructorValueError as e:
    assert 'must be a function the pickle made' in str(e), e
else:
    raise AssertionError('filled os.path.basename')
