# What the standard library pickles of ordinary objects keep loading
# under allow=[] at every protocol: the closed table vouches for the
# calls they make and the objects they give state to.
import collections, datetime, decimal, fractions, functools, pickle
import ipaddress, pathlib, re, types, uuid, array, enum
import ccloudpickle as cp

objs = [
    datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc),
    datetime.date(2024, 1, 2), datetime.timedelta(days=3),
    decimal.Decimal('1.25'), fractions.Fraction(1, 3),
    collections.OrderedDict(a=1, b=[2]), collections.defaultdict(int, a=1),
    collections.Counter('abca'), collections.deque([1, 2], maxlen=5),
    {1, 2, 3}, frozenset({'a'}), bytearray(b'ab'), 1 + 2j, range(10),
    slice(1, 5, 2), ValueError('bad', 3), StopIteration(3), SystemExit(2),
    KeyboardInterrupt(), functools.partial(max, 1),
    re.compile('a+b', re.I), uuid.UUID(int=12345),
    ipaddress.ip_network('10.0.0.0/8'), pathlib.PurePosixPath('/a/b'),
    types.SimpleNamespace(a=1), array.array('d', [1.0, 2.0]),
]
for proto in range(pickle.HIGHEST_PROTOCOL + 1):
    for o in objs:
        data = pickle.dumps(o, protocol=proto)
        try:
            got = cp.loads(data, allow=[])
        except Exception as e:
            raise AssertionError('protocol %d, %r: %s' % (proto, o, e))
        if isinstance(o, BaseException):
            assert type(got) is type(o) and got.args == o.args, (proto, got)
        elif isinstance(o, functools.partial):
            assert got.func is max and got.args == (1,), (proto, got)
        else:
            assert got == o, (proto, o, got)
