import ccloudpickle as cp, io
f = io.BytesIO(b'N.')
cases = [
    (lambda: cp.loads(b'N.', bogus=1),
     "loads() got an unexpected keyword argument 'bogus'"),
    (lambda: cp.load(f, bogus=1),
     "load() got an unexpected keyword argument 'bogus'"),
    (lambda: cp.loads(5),
     "memoryview: a bytes-like object is required, not 'int'"),
    (lambda: cp.loads(b'\x80\x04N.', encoding=5),
     "loads() argument 'encoding' must be str, not int"),
    (lambda: cp.loads(b'\x80\x04N.', errors=5),
     "loads() argument 'errors' must be str, not int"),
]
for call, want in cases:
    try:
        call()
    except TypeError as e:
        assert str(e) == want, (str(e), want)
    else:
        raise AssertionError(want)
assert f.tell() == 0 and cp.load(f) is None
