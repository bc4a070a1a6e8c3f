import ccloudpickle as cp, io
data = cp.dumps(1)
calls = [lambda **kw: cp.loads(data, **kw),
         lambda **kw: cp._loads_exact(data, **kw),
         lambda **kw: cp.load(io.BytesIO(data), **kw)]
def expect(exc, frag, **kw):
    for call in calls:
        try:
            call(**kw)
        except exc as e:
            assert frag in str(e), (frag, str(e))
        else:
            raise AssertionError(kw)
for key in ('allow', 'deny'):
    for pat, why in (('', 'empty'), ('a b', 'whitespace'),
                     ('*os', "'*' is only allowed at the end"),
                     ('os..path', 'empty component'),
                     ('os.', 'empty component'),
                     ('os/x', 'not a dotted name'),
                     ('o\x00s', 'not a dotted name'),
                     ('\udc80', 'not encodable'),
                     ('9lives', 'a component starts with a digit')):
        expect(ValueError, 'bad %s pattern %r: %s' % (key, pat, why),
               **{key: ['ok_mod', pat]})
    expect(TypeError, '%s patterns must be str, not int' % key,
           **{key: ['os', 1]})
    expect(TypeError, '%s patterns must be str, not bytes' % key,
           **{key: [b'os']})
    expect(TypeError, 'must be an iterable of str patterns, not str',
           **{key: 'os'})
    expect(TypeError, 'must be an iterable of str patterns, not int',
           **{key: 5})
# an iterator that fails: its error, unchanged
def gen():
    yield 'os'
    raise KeyError('from the iterator')
try:
    cp.loads(data, allow=gen())
except KeyError as e:
    assert 'from the iterator' in str(e)
else:
    raise AssertionError('iterator error lost')
