# The objects both sides build (in __main__, so by value) and check.
import enum, typing, types, collections, logging, math
G = 10
def make(n):
    def add(x):
        return x + n + G
    return add
def fact(n):
    return 1 if n < 2 else n * fact(n - 1)
class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y
    def norm2(self):
        return self.x ** 2 + self.y ** 2
class Color(enum.Enum):
    RED = 1
    GREEN = 2
class Perm(enum.Flag):
    R = 4
    W = 2
    RW = 6
T = typing.TypeVar('T', bound=Point)
mod = types.ModuleType('dynmod')
exec('Y = 3\ndef f():\n    return Y\n', mod.__dict__)
obj = [make(1), fact, Point, Point(3, 4), Color, Color.GREEN,
       Perm.RW, T, mod, {'a': 1}.keys(),
       collections.OrderedDict(b=2).items(), logging.getLogger('x'),
       property(lambda s: 1), math.floor, types.CellType(5)]
