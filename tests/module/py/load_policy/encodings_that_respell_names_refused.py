import ccloudpickle as cp, sys
def s(x):
    b = x.encode()
    return b'\x8c' + bytes([len(b)]) + b
def U(b):
    return b'U' + bytes([len(b)]) + b
cases = [('unicode_escape', b'\\x72unpy'),
         ('raw_unicode_escape', b'\\u0072unpy'),
         ('utf-7', b'+AHI-unpy'), ('cp037', 'runpy'.encode('cp037'))]
for enc, raw in cases:
    data = (b'\x80\x04' + s('ccloudpickle') + s('subimport') +
            b'\x93' + U(raw) + b'\x85R.')
    sys.modules.pop('runpy', None)
    try:
        cp.loads(data, encoding=enc, deny=['runpy'])
    except cp.PolicyError as e:
        assert 'encoding' in str(e), str(e)
    else:
        raise AssertionError(enc)
    assert 'runpy' not in sys.modules, enc
    assert cp.loads(data, encoding=enc).__name__ == 'runpy'
# what keeps ASCII bytes loads under a policy
ok = (b'\x80\x02' + s('ccloudpickle') + s('subimport') + b'\x93'
      + U(b'math') + b'\x85R.')
for enc in ('ASCII', 'ascii', 'latin1', 'latin-1', 'utf-8',
            'UTF8'):
    assert cp.loads(ok, encoding=enc, deny=['os']).__name__ == 'math', enc
try:
    cp.loads(ok, encoding='no-such-codec', allow=['math'])
except cp.PolicyError as e:
    assert 'no-such-codec' in str(e)
else:
    raise AssertionError('no-such-codec')
