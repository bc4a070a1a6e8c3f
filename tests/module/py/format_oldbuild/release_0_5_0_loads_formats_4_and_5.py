# Today's pickles, one per line as hex: format 4 of each object, the
# default format of the closure (format 5, format 4's bytes), and the
# closure with the marker a newer format opens with.
import ccloudpickle as cp, math, enum, dataclasses, sys
def make(a):
    def task(x):
        return math.floor(x) + a
    return task
class Point:
    def __init__(self, x):
        self.x = x
    def norm(self):
        return abs(self.x)
class Color(enum.Enum):
    RED = 1
@dataclasses.dataclass
class Item:
    name: str
    n: int = 2
objs = [make(3), Point, Color.RED, Item('a')]
for o in objs:
    print(cp.dumps(o, format=4).hex())
print(cp.dumps(make(3)).hex())
mk = b'_format_%d_9_8_7' % (cp.FORMAT + 1)
data = cp.dumps(make(3))
print((data[:2] + b'\x8c\x0cccloudpickle\x8c' + bytes([len(mk)]) +
       mk + b'\x930' + data[2:]).hex())
