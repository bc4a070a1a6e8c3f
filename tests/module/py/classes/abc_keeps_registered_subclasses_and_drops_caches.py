import abc
class Shape(abc.ABC):
    @abc.abstractmethod
    def area(self):
        ...
    @property
    @abc.abstractmethod
    def name(self):
        ...
class Square(Shape):
    def area(self):
        return 4
    @property
    def name(self):
        return 'square'
class Duck:
    pass
Shape.register(Duck)
assert not isinstance(3, Shape)  # fills the negative cache
