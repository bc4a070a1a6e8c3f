Shape, Square, Duck = obj
assert issubclass(Duck, Shape) and isinstance(Duck(), Shape)
assert Square().area() == 4 and Square().name == 'square'
assert Shape.__abstractmethods__ == {'area', 'name'}
try:
    Shape()
    raise AssertionError('abstract class instantiated')
except TypeError:
    pass
assert not isinstance(3, Shape)
