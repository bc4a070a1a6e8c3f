import ccloudpickle as cp, io
p = cp.Pickler(io.BytesIO())
for name in ('dispatch', '_dispatch_table'):
    before = getattr(p, name)
    try:
        setattr(p, name, {})
    except AttributeError as e:
        assert str(e) == 'attribute is read-only', e
    else:
        raise AssertionError(name)
    assert getattr(p, name) == before
class T:
    pass
p.dispatch_table = {T: lambda o: (T, ())}
assert T in p.dispatch_table
