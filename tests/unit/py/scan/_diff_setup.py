# The differential: the names scanned are the names CPython's unpickler
# asks find_class for (recorded by a find_class that returns stubs, so
# nothing real runs), and GLOBAL/INST arguments agree with genops. Each
# record is len(4) data, then len(4) "module name\n" lines sorted.
import pickle, pickletools, io, struct, sys, collections, datetime
import decimal, fractions, uuid, enum, array, ccloudpickle
sys.path.append('/usr/lib/python3/dist-packages')
import cloudpickle
class Stub:
    def __init__(self, *a, **k): pass
    def __call__(self, *a, **k): return Stub()
    def __setstate__(self, s): pass
    def __getattr__(self, n): return Stub()
    def __hash__(self): return 1
    def __setitem__(self, k, v): pass
    def append(self, v): pass
    def extend(self, v): pass
    def add(self, v): pass
class Rec(pickle.Unpickler):
    def find_class(self, m, n):
        self.names.add((m, n))
        return Stub
def names(data):
    u = Rec(io.BytesIO(data)); u.names = set(); u.load()
    g = set()
    for op, arg, pos in pickletools.genops(data):
        if op.name in ('GLOBAL', 'INST'):
            g.add(tuple(arg.split(' ', 1)))
    assert g <= u.names, (g, u.names)
    return u.names
class P:
    def __init__(self): self.x = [1, {2: 3}]
class Color(enum.Enum):
    RED = 1
def make(n):
    def add(x, *, k=1):
        return x + n + k
    return add
shared = [1]
objs = [1, -5, 2**70, 1.5, 'x\u20ac', b'b', bytearray(b'a'), None,
        True, (), (1,), (1, 2), (1, 2, 3), tuple(range(9)), [1, 2],
        {'a': 1}, {1, 2}, frozenset([3]), [shared, shared],
        collections.OrderedDict(a=1), collections.deque([1]),
        collections.Counter('aab'), datetime.datetime(2020, 1, 2, 3),
        datetime.timedelta(3), decimal.Decimal('1.5'),
        fractions.Fraction(1, 3), uuid.UUID(int=5), complex(1, 2),
        range(5), slice(1, 2), P(), Color.RED, array.array('i', [1]),
        {'nested': [(1, [2, {3: (4,)}])]}]
out = []
def rec(data, proto):
    ns = '\n'.join(sorted(m + ' ' + n for m, n in names(data)))
    ns = (ns + '\n' if ns else '').encode()
    top = max(op.proto for op, a, p in pickletools.genops(data))
    out.append(struct.pack('<I', len(data)) + data +
               bytes([proto, top]) +
               struct.pack('<I', len(ns)) + ns)
for proto in range(6):
    for o in objs:
        rec(pickle.dumps(o, protocol=proto), proto)
    rec(pickle.dumps(objs, protocol=proto), proto)
for proto in (2, 3, 4, 5):
    rec(ccloudpickle.dumps([make(1), P, Color], protocol=proto),
        proto)
    rec(cloudpickle.dumps([make(1), P, Color], protocol=proto),
        proto)
rec(ccloudpickle.dumps([make(1), P, Color], compat='cloudpickle'), 5)
