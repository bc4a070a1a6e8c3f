"""Regenerate tests/fuzz/corpus_pkscan: small pickles of every protocol,
ccloudpickle / cloudpickle function and class pickles, marshal code.

    PYTHONPATH=build /usr/bin/python3 tests/fuzz/make_corpus_pkscan.py
"""
import collections, datetime, decimal, enum, marshal, os, pickle, sys

import ccloudpickle

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus_pkscan")
os.makedirs(out, exist_ok=True)


def put(name, data):
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)


def outer(a, b=2, *args, c, d=4, **kw):
    z = 5

    def inner(x, /, y):
        return x + y + z + a + len(sys.argv)

    return inner


class Color(enum.Enum):
    RED = 1
    GREEN = 2


class K(int):
    def meth(self):
        return 1

    @property
    def p(self):
        return 2


class Evil:
    def __reduce__(self):
        return (os.system, ("true",))


data = [1, -1, 2**40, 2**100, 1.5, "s\u20ac", b"b", bytearray(b"ba"), None,
        True, (1,), (1, 2), (1, 2, 3), (), {1: 2}, {3}, frozenset([4]),
        collections.OrderedDict(a=1), datetime.date(2020, 1, 2),
        decimal.Decimal("1.5"), complex(1, 2), range(3), slice(1, 2)]
shared = [1]
data.append([shared, shared])
for proto in range(6):
    put(f"data-p{proto}.pkl", pickle.dumps(data, protocol=proto))
    put(f"evil-p{proto}.pkl", pickle.dumps(Evil(), protocol=proto))
put("inband-p5.pkl",
    pickle.dumps(pickle.PickleBuffer(b"abc"), protocol=5,
                 buffer_callback=lambda b: True))
put("oob-p5.pkl",
    pickle.dumps(pickle.PickleBuffer(b"abc"), protocol=5,
                 buffer_callback=lambda b: False))
f = outer(1, c=3)
put("cc-closure.pkl", ccloudpickle.dumps(f))
put("cc-closure-p2.pkl", ccloudpickle.dumps(f, protocol=2))
put("cc-compat.pkl", ccloudpickle.dumps(f, compat="cloudpickle"))
put("cc-lambda.pkl", ccloudpickle.dumps(lambda q, *a, k=1, **kw: q))
put("cc-classes.pkl", ccloudpickle.dumps((K, Color)))
try:
    sys.path.append("/usr/lib/python3/dist-packages")
    import cloudpickle
    put("cp-closure.pkl", cloudpickle.dumps(f))
    put("cp-classes.pkl", cloudpickle.dumps((K, Color)))
except ImportError:
    pass
put("marshal-code.bin", marshal.dumps(outer.__code__))
