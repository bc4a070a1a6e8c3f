# typing's classes with metaclasses that build other bases than the class
# statement names, or check them.
import typing
from typing import (TypedDict, NamedTuple, Generic, TypeVar,
                    Protocol, runtime_checkable)
T = TypeVar('T')
class Movie(TypedDict):
    title: str
    year: int
class Partial(TypedDict, total=False):
    note: str
class Sub(Movie):
    rating: float
class Point(NamedTuple):
    x: int
    y: int = 0
    def norm1(self):
        return abs(self.x) + abs(self.y)
class Box(Generic[T]):
    def __init__(self, item):
        self.item = item
    def get(self):
        return self.item
@runtime_checkable
class Closable(Protocol):
    def close(self) -> None: ...
class Plain(Protocol):
    def meth(self) -> int: ...
class Strict(type):
    '''A metaclass that checks the bases it is given.'''
    def __new__(mcls, name, bases, ns, **kw):
        for b in bases:
            if not isinstance(b, type):
                raise TypeError('not a class: %r' % (b,))
        return super().__new__(mcls, name, bases, ns)
class Checked(Box[int], metaclass=Strict):
    pass
class Row(Point, metaclass=Strict):
    pass
