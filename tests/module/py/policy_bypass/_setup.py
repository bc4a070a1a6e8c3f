# marker/exists(); G/S/SG/call1 build hand-written pickles (GLOBAL,
# BINUNICODE, STACK_GLOBAL, a call with a tuple of arguments); touch is
# the string argument of a command that creates the marker;
# refused(data, fragment, **kw) asserts a PolicyError before anything
# ran.
import ccloudpickle as cp, pickle, os, tempfile
marker = os.path.join(tempfile.mkdtemp(), 'marker')
def exists():
    return os.path.exists(marker)
def G(m, n): return b'c' + m.encode() + b'\n' + n.encode() + b'\n'
def S(s):
    b = s.encode('utf-8', 'surrogatepass')
    return b'X' + len(b).to_bytes(4, 'little') + b
def SG(m, n): return S(m) + S(n) + b'\x93'
def call1(fn, *args): return fn + b'(' + b''.join(args) + b'tR'
touch = S('touch ' + marker)
def refused(data, fragment, **kw):
    try:
        cp.loads(data, **kw)
    except cp.PolicyError as e:
        assert fragment in str(e), (fragment, str(e))
        assert not exists(), 'the refused pickle ran'
        return str(e)
    raise AssertionError('not refused: %r' % (kw,))
