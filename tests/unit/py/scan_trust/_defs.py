import ccloudpickle, functools, enum, typing, collections, math
class K:
    def __setstate__(self, st):
        self.__dict__.update(st)
class Bare:
    x = 1
def f():
    return 42
class Call:
    def __reduce__(self):
        return (f, ())
class Meta(type):
    pass
class WithMeta(metaclass=Meta):
    pass
class Hooked:
    def __init_subclass__(cls, **kw):
        pass
class Sub(Hooked):
    pass
class Color(enum.Enum):
    RED = 1
    def describe(self):
        return self.name
b = Bare()
b.y = 2
