Shape, Square = obj
assert isinstance(Square(), Shape)
assert isinstance(3, Shape)
assert not isinstance('x', Shape)
import abc
reg = [r() for r in abc._get_dump(Shape)[0]]
assert sorted(c.__name__ for c in reg if c) == ['Square', 'int'], reg
try:
    Shape()
except TypeError:
    pass
else:
    raise AssertionError('abstract class instantiated')
