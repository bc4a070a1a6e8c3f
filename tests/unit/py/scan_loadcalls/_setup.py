# `marker` (a path), `hits()` (what was written there, then removed);
# Color: an enum by value whose methods write the marker; Base: a class
# by value with __init_subclass__; f: a function by value; R(fn, args)
# pickles as fn(*args); refused(obj): the pickle is refused under
# allow=[] with nothing run, and is live without a policy.
import ccloudpickle as cp, enum, functools, os, tempfile
marker = os.path.join(tempfile.mkdtemp(), 'marker')
def hit(w):
    with open(marker, 'a') as fh: fh.write(w + '\n')
def hits():
    if not os.path.exists(marker): return []
    with open(marker) as fh: h = fh.read().split()
    os.unlink(marker)
    return h
class Color(enum.Enum):
    RED = 1
    GREEN = 2
    def __lt__(self, o): hit('lt'); return self.value < o.value
    def __repr__(self): hit('repr'); return 'C'
    def __set_name__(self, owner, name): hit('setname')
    def __hash__(self): hit('hash'); return 1
    def __index__(self): hit('index'); return 1
class Base:
    def __init_subclass__(cls, **kw): hit('init_subclass')
def f(*a):
    hit('f'); return 0
class R:
    def __init__(self, fn, args): self.fn, self.args = fn, args
    def __reduce__(self): return (self.fn, self.args)
def refused(obj, what, live=True):
    data = cp.dumps(obj, protocol=5)
    try:
        cp.loads(data, allow=[])
    except cp.PolicyError as e:
        assert 'code carried by value' in str(e), (what, str(e))
    else:
        raise AssertionError('not refused: ' + what)
    assert hits() == [], what
    if not live: return
    try:
        cp.loads(data)
    except Exception:
        pass
    assert hits() != [], 'the pickle is not live: ' + what
