import weakref
class Base:
    __slots__ = ()
class __Priv(Base):
    __slots__ = ('__secret', 'plain', '__weakref__')
    def __init__(self):
        self.__secret = 's'
        self.plain = 2
    def secret(self):
        return self.__secret
    @property
    def double(self):
        return self.plain * 2
    @classmethod
    def cname(cls):
        return cls.__name__
    @staticmethod
    def inc(v):
        return v + 1
class OneStr:
    __slots__ = 'only'
class DictSlots:
    __slots__ = {'a': 'doc of a', 'b': 'doc of b'}
class WithDict:
    __slots__ = ('__dict__', 'z')
class Dunder:
    __slots__ = ('__x__',)
