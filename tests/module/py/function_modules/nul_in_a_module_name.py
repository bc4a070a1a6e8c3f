import ccloudpickle as cp, struct, sys
def s(x):
    b = x.encode()
    return b'\x8c' + bytes([len(b)]) + b
sub = (b'\x80\x04' + s('ccloudpickle') + s('subimport') +
       b'\x93' + s('os\x00') + b'\x85R.')
for kw in ({'deny': ['os']}, {'deny': ['subprocess']}):
    try:
        cp.loads(sub, **kw)
    except cp.PolicyError as e:
        assert 'os' in str(e), str(e)
    else:
        raise AssertionError(kw)
try:
    cp.loads(sub)
except cp.ReconstructorValueError as e:
    assert 'holds a NUL character' in str(e), str(e)
else:
    raise AssertionError('loaded')
def code_of(f):
    import io, pickle
    class R(pickle.Unpickler):
        def find_class(self, m, n):
            if n == '_function_make':
                return lambda *a: a
            return super().find_class(m, n)
    return R(io.BytesIO(cp.dumps(f))).load()[0]
def z(x=1):
    return x
try:
    cp._function_make(code_of(z), {'__name__': 'x'}, None, {},
                      ('o', 'os\x00'))
except cp.ReconstructorValueError as e:
    assert 'holds a NUL character' in str(e), str(e)
else:
    raise AssertionError('made')
