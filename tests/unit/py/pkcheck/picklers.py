# What picklers write at protocols 2 to 5: stdlib pickle and ccloudpickle,
# data and code, as one bytes object `result` of length-prefixed pickles.
import collections
import datetime
import decimal
import fractions
import pickle
import struct
import uuid

import ccloudpickle

shared = [1, 2]
rec = []
rec.append(rec)
selfdict = {}
selfdict["me"] = selfdict
data = [
    None, True, False, 0, -1, 255, 65535, 2**31 - 1, -2**31, 2**64, -2**200,
    1.5, float("inf"), "", "a", "é\u20ac\U0001f600", "\ud800", "x" * 300,
    b"", b"\x00\xff" * 200, bytearray(b"abc"), (), (1,), (1, 2), (1, 2, 3),
    (1, 2, 3, 4), [], [1, [2, [3, [4]]]], list(range(2500)), {},
    {i: str(i) for i in range(1500)}, {(1, 2): "tuple key", None: 1},
    set(), {1, 2, 3}, set(range(1200)), frozenset(), frozenset({"a", 1}),
    [shared, shared, (shared,)], rec, selfdict,
    datetime.datetime(2026, 12, 7, 4, 30), datetime.date(2026, 1, 1),
    decimal.Decimal("1.25"), fractions.Fraction(3, 4), complex(1, 2),
    uuid.UUID(int=42), collections.OrderedDict(a=1),
    collections.Counter("hello"), collections.deque([1, 2]),
    range(5), slice(1, 2), Exception("boom"), ValueError,
    [("row", i, float(i)) for i in range(300)],
]
pickles = []
for proto in (2, 3, 4, 5):
    for obj in data:
        pickles.append(pickle.dumps(obj, protocol=proto))
        pickles.append(ccloudpickle.dumps(obj, protocol=proto))

def outer(n):
    k = n + 1
    def inner(x, *args, y=2, **kw):
        return x + k + y + len(args) + len(kw)
    return inner

class Point:
    __slots__ = ("x", "y")
    def __init__(self, x, y):
        self.x, self.y = x, y
    def norm(self):
        return (self.x ** 2 + self.y ** 2) ** 0.5

class Tree:
    def __init__(self):
        self.children = []

t = Tree()
t.children.append(t)
code = [lambda x: x * 2, outer(3), Point, Point(3, 4), t, Tree,
        [outer(i) for i in range(3)]]
for proto in (2, 3, 4, 5):
    for obj in code:
        pickles.append(ccloudpickle.dumps(obj, protocol=proto))
result = b"".join(struct.pack("<Q", len(p)) + p for p in pickles)
