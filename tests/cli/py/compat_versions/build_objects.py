# Built in __main__ (so functions and classes travel by value).
import dataclasses, enum, typing, types, collections, functools
G = 10
def make(n):
    def add(x):
        return x + n + G
    return add
def fact(n):
    return 1 if n < 2 else n * fact(n - 1)
def counter():
    count = 0
    def step():
        nonlocal count
        count += 1
        return count, step
    return step
double = lambda x, *, k=2: x * k
def documented(a, b: int = 2) -> int:
    'Add.'
    return a + b
documented.tag = 'kept'
class Point:
    scale = 2
    def __init__(self, x, y):
        self.x, self.y = x, y
    def norm2(self):
        return (self.x ** 2 + self.y ** 2) * self.scale
    @classmethod
    def origin(cls):
        return cls(0, 0)
    @staticmethod
    def unit():
        return 1
    @property
    def sx(self):
        return self.x * self.scale
class Slotted:
    __slots__ = ('a',)
    def __init__(self, a):
        self.a = a
class Color(enum.Enum):
    RED = 1
    GREEN = 2
    def describe(self):
        return self.name.lower()
class Perm(enum.IntFlag):
    R = 4
    W = 2
T = typing.TypeVar('T', bound=Point)
@dataclasses.dataclass
class DC:
    a: int
    b: list = dataclasses.field(default_factory=list)
    c: typing.ClassVar[int] = 3
mod = types.ModuleType('dynmod')
exec('Y = 3\ndef f():\n    return Y\n', mod.__dict__)
d = {'a': 1, 'b': 2}
od = collections.OrderedDict(b=2, a=1)
obj = [make(1), fact, counter(), double, documented, Point,
       Point(3, 4), Slotted(5), Color, Color.GREEN, Perm.R | Perm.W,
       T, DC(1, [2]), DC, mod, d.keys(), d.values(), d.items(),
       od.keys(), od.values(), od.items(), functools.partial(make(2), 1)]
import ccloudpickle
