import ccloudpickle as cp, enum, collections, dataclasses
y = 10
def outer(k):
    def inner(x, *, z=2):
        return x + k + y + z
    return inner
class Base:
    def hello(self):
        return 'hi ' + type(self).__name__
class Thing(Base):
    kind = 'thing'
    @classmethod
    def make(cls):
        return cls()
    @property
    def p(self):
        return 5
class Color(enum.Enum):
    RED = 1
    GREEN = 2
class Flag(enum.IntFlag):
    A = 1
    B = 2
@dataclasses.dataclass
class DC:
    a: int = 1
objs = [lambda a, b=3: a * b, outer(1), Thing, Color, Color.RED,
        Flag.A | Flag.B, None, None,
        collections.OrderedDict(a=1), {1, 2}, frozenset([3]),
        collections.defaultdict(list), (1.5, b'x', None)]
for proto in (2, 3, 4, 5):
    for compat in (None, 'cloudpickle'):
        # compat pickles below protocol 3 spell __import__ as
        # __builtin__.__import__, which the Unpickler does not map to
        # its shim (a defect outside the policy): they need stock
        # cloudpickle, with or without a policy
        if compat and proto < 3:
            continue
        got = cp.loads(cp.dumps(objs, protocol=proto,
                                compat=compat), allow=[])
        lam, inn, T, C, red, fl, D, d5, od, s, fs, dd, t = got
        assert lam(2) == 6 and inn(1) == 14
        assert T.make().hello() == 'hi Thing' and T().p == 5
        assert [m.name for m in C] == ['RED', 'GREEN']
        assert red is C.RED and int(fl) == 3
        assert od == {'a': 1} and s == {1, 2}
        assert t == (1.5, b'x', None)
        # a dataclass by value: its __repr__ wrapper (reprlib) refers to
        # the module _thread, which pkscan does not count as plain
        D = cp.loads(cp.dumps(DC, protocol=proto, compat=compat),
                     allow=['_thread'])
        assert D(5).a == 5 and D().a == 1 and repr(D(5)) == 'DC(a=5)'
        # an instance of a class by value with methods: its methods
        # may run during the load (policy.h), refused by any policy
        data = cp.dumps(DC(5), protocol=proto, compat=compat)
        try:
            cp.loads(data, allow=['_thread'])
        except cp.PolicyError as e:
            assert 'class carried by value' in str(e), e
        else:
            raise AssertionError('by-value instance loaded')
        assert cp.loads(data).a == 5
