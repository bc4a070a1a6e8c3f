import ccloudpickle as cp, struct, marshal, sys, importlib.util
def s(x):
    b = x.encode()
    return b'X' + struct.pack('<I', len(b)) + b
def g(m, n): return s(m) + s(n) + b'\x93'
def i(n): return b'J' + struct.pack('<i', n)
ns = {}
exec('def f():\n    return c\n', ns)
blob = marshal.dumps(ns['f'].__code__)
ver = '%d.%d' % sys.version_info[:2]
magic = int.from_bytes(importlib.util.MAGIC_NUMBER, 'little')
CODE = (s(ver) + i(magic) + b'B' + struct.pack('<I', len(blob))
        + blob + b'\x87')
def make(mods):
    return (b'\x80\x04' + g('ccloudpickle', '_function_make') +
            b'(' + CODE + b'}' + s('__name__') + s('t') + b's' +
            b'N' + b'}' + mods + b't' + b'R' + b'.')
def load(data, **kw):
    sys.modules.pop('colorsys', None)
    try:
        f = cp.loads(data, **kw)
    except cp.PolicyError as e:
        assert 'colorsys' not in sys.modules, kw
        return str(e)
    return f()
C = s('colorsys')
ok = make(b'(' + s('c') + C + b't')
for kw in ({'allow': ['colorsys']}, {'deny': ['os']}):
    assert load(ok, **kw) is sys.modules['colorsys'], kw
for kw in ({'allow': []}, {'allow': ['math']},
           {'deny': ['colorsys']}):
    m = load(ok, **kw)
    assert 'refuses 1 import: colorsys' in m, (kw, m)
bad = {
    'computed': b'(' + s('c') + g('builtins', 'str') + C +
                b'\x85' + b'R' + b't',
    'odd': b'(' + s('c') + C + s('d') + b't',
    'list': b'(' + s('c') + C + b'l',
    'int': b'(' + s('c') + i(3) + b't',
    'six': b'(' + s('c') + C + b't' + b')',
}
# 'os\\0' imports os under a name no rule names: refused
nul = make(b'(' + s('c') + s('os\x00') + b't')
for kw in ({'deny': ['os']}, {'deny': ['subprocess']}):
    m = load(nul, **kw)
    assert isinstance(m, str) and 'os' in m, (kw, m)
for what, mods in bad.items():
    for kw in ({'allow': ['colorsys', 'builtins']},
               {'deny': ['os']}):
        m = load(make(mods), **kw)
        assert 'ccloudpickle._function_make' in m, (what, kw, m)
# a real dump with modules passes the strictest policy that
# allows them, and stays deterministic
import math
def task(x):
    return math.floor(x)
data = cp.dumps(task)
assert data == cp.dumps(task)
assert cp.loads(data, allow=['math'])(2.5) == 2
