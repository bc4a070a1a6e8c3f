import enum, types
G = 10
def make(n):
    def add(x):
        return x + n + G
    return add
class Point:
    def __init__(self, x):
        self.x = x
class Color(enum.Enum):
    RED = 1
obj = [make(1), Point, Point(3), Color.RED, types.CellType(5),
       types.CellType(), {'a': 1}.keys()]
