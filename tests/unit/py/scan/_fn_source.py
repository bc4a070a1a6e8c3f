import ccloudpickle, enum, sys
SRC = '''\
import sys
K = 3
def outer(a, b=2, *args, c, d=4, **kw):
    z = 5
    def inner(x, /, y):
        return x + y + z + a + K + len(sys.argv)
    return inner
square = lambda v: v * v
def nested():
    def level1():
        def level2(p=1, q=2):
            return p
        return level2
    return level1()
class Base:
    pass
class Thing(Base):
    size = 1
    def method(self, n, *, scale=2):
        return n * scale
    @classmethod
    def make(cls):
        return cls()
    @staticmethod
    def helper(*items):
        return items
    @property
    def prop(self):
        return 1
class Color(enum.Enum):
    RED = 1
    GREEN = 2
'''
exec(compile(SRC, '/scan/src.py', 'exec'), globals())
inner = outer(1, c=3)
