# A small opcode assembler (protocol 4), a function carried by value
# that creates the marker, and refused(data, **kw): PolicyError under
# every policy, the marker never created.
import ccloudpickle as cp, os, struct, sys, tempfile, marshal
import importlib.util, pickle, types
marker = os.path.join(tempfile.mkdtemp(), 'marker')
def s(x):
    b = x.encode()
    return b'X' + struct.pack('<I', len(b)) + b
def g(m, n): return s(m) + s(n) + b'\x93'
def i(n): return b'J' + struct.pack('<i', n)
PROTO, STOP, R, B = b'\x80\x04', b'.', b'R', b'b'
ns = {'marker': marker}
exec('def evil(*a):\n    open(marker, "w").close()\n', ns)
code = ns['evil'].__code__
ver = '%d.%d' % sys.version_info[:2]
magic = int.from_bytes(importlib.util.MAGIC_NUMBER, 'little')
blob = marshal.dumps(code)
FN = (g('ccloudpickle', '_function_new') +
      g('ccloudpickle', '_code_unmarshal') + s(ver) + i(magic) +
      b'B' + struct.pack('<I', len(blob)) + blob + b'\x87' + R +
      b'}' + s('marker') + s(marker) + b's' + b'N' + b'\x87' + R)
POLICIES = ({'allow': []}, {'allow': ['math']},
            {'deny': ['os', 'subprocess']})
def refused(data, what):
    for kw in POLICIES:
        try:
            cp.loads(data, **kw)
        except cp.PolicyError:
            pass
        else:
            raise AssertionError('not refused: %s %r' % (what, kw))
        assert not os.path.exists(marker), (what, kw)
