for o in (UserId, BaseId, P, Ts):
    d = cp.dumps(o)
    assert cp.loads(d) is o, o
    assert cp.dumps(o) == d
    assert cp.loads(d, allow=[]) is o
assert b'_make_newtype' in cp.dumps(UserId)
assert b'_make_typeparam' in cp.dumps(P)
