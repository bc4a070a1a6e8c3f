for fmt in ('cloudpickle3', 'cloudpickle2'):
    for o in (UserId, P, Ts):
        d = cp.dumps(o, compat=fmt)
        assert b'_make_' not in d, (fmt, d)
        assert b'ccloudpickle' not in d, (fmt, d)
    T = typing.TypeVar('T', bound=Base)
    d = cp.dumps(T, compat=fmt)
    assert b'_make_typevar' in d and b'_make_typeparam' not in d
