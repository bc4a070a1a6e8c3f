import ccloudpickle as cp, pickle, collections
assert u.find_class('collections', 'OrderedDict') is \
    collections.OrderedDict
assert u.find_class('__builtin__', 'set') is set
assert u.find_class('builtins', 'set') is set
assert u.find_class('ccloudpickle', '_make_cell') is \
    cp._make_cell
for mod, name in (('posix', 'system'), ('collections', 'deque'),
                  ('builtins', 'frozenset'),
                  ('ccloudpickle', '_make_empty_cell'),
                  ('collections', 'OrderedDict.fromkeys'),
                  ('cloudpickle.cloudpickle', '_make_cell'),
                  ('builtins', '__import__'),
                  ('collections\udc80', 'OrderedDict'),
                  (b'collections', 'OrderedDict')):
    try:
        u.find_class(mod, name)
    except pickle.UnpicklingError as e:
        want = 'import policy refuses find_class(%r, %r)' % (mod, name)
        assert want in str(e), str(e)
    else:
        raise AssertionError((mod, name))
del u
# an Unpickler of its own has no policy
u2 = cp.Unpickler(io.BytesIO(b''))
assert u2.find_class('collections', 'deque') is \
    collections.deque
