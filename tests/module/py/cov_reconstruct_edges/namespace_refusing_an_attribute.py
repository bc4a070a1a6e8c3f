REFUSED = 'x'
try:
    cp._make_skeleton_class(Meta, 'K', (), {'x': 1}, None, None)
except LookupError as e:
    assert str(e) == 'refused x', str(e)
else:
    raise AssertionError('made')
assert made == []
K = cp._make_skeleton_class(Meta, 'K', (), {'y': 2}, None, None)
assert made == ['K'] and K.y == 2 and type(K) is Meta
