import ccloudpickle as cp, io
u = cp.Unpickler(io.BytesIO(b''))
assert u.find_class('builtins', 'len') is len
for args in ((), ('builtins',), ('builtins', 'len', 'x')):
    try:
        u.find_class(*args)
    except TypeError as e:
        want = 'find_class() takes 2 arguments (%d given)' % len(args)
        assert str(e) == want, e
    else:
        raise AssertionError(args)
