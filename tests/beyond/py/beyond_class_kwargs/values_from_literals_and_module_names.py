define('''
import enum
class Color(enum.Enum):
    RED = 1
LIMIT = 10
class Base:
    seen = []
    def __init_subclass__(cls, **kw):
        Base.seen.append(kw)
class A(Base, n=-3, t=(1, 'x'), lim=LIMIT, color=Color.RED,
        kind=int, d={'k': [1.5, None]}):
    def m(self):
        pass
''')
want = dict(n=-3, t=(1, 'x'), lim=10, color=Color.RED, kind=int,
            d={'k': [1.5, None]})
assert Base.seen == [want]
d = cp.dumps(A)
assert cp.dumps(A) == d
Base.seen.clear()
