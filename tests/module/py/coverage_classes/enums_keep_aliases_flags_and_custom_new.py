import enum
class Color(enum.Enum):
    RED = 1
    GREEN = 2
    CRIMSON = 1
    def warm(self):
        return self is Color.RED
class Perm(enum.Flag):
    NONE = 0
    R = 4
    W = 2
    X = 1
    RW = 6
class Mode(enum.IntFlag):
    A = 1
    B = 2
class Planet(enum.Enum):
    EARTH = (5.97e24, 6.37e6)
    MARS = (6.42e23, 3.39e6)
    def __init__(self, mass, radius):
        self.mass = mass
        self.radius = radius
class Coded(str, enum.Enum):
    def __new__(cls, value, label):
        obj = str.__new__(cls, value)
        obj._value_ = value
        obj.label = label
        return obj
    YES = ('y', 'Yes')
    NO = ('n', 'No')
