import abc, gc
class Shape(abc.ABC):
    @abc.abstractmethod
    def area(self): ...
class Square:
    def area(self):
        return 4
class Gone:
    pass
Shape.register(Square)
Shape.register(Gone)
Shape.register(int)
assert issubclass(Gone, Shape)
del Gone
gc.collect()
