import ccloudpickle as cp, io
class Flag:
    def __bool__(self):
        raise RuntimeError('true or false?')
for kw in ('diagnose', 'portable'):
    f = io.BytesIO()
    try:
        cp.dump([1], f, **{kw: Flag()})
    except RuntimeError as e:
        assert str(e) == 'true or false?', e
    else:
        raise AssertionError(kw)
    assert f.getvalue() == b''
