REFUSED = '__orig_bases__'
try:
    cp._make_skeleton_class(Meta, 'K', (Entry(),), {}, None, None)
except LookupError as e:
    assert '__orig_bases__' in str(e), str(e)
else:
    raise AssertionError('made')
assert made == []
REFUSED = None
e = Entry()
K = cp._make_skeleton_class(Meta, 'K', (e,), {}, None, None)
assert K.__bases__ == (Base,) and K.__orig_bases__ == (e,)
