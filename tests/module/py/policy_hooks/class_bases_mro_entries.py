NS = (g('types', 'SimpleNamespace') + b')' + R + b'}' +
      s('__mro_entries__') + FN + b's' + B)
data = (PROTO + g('ccloudpickle', '_make_skeleton_class') +
        b'(' + g('builtins', 'type') + s('X') + NS + b'\x85' +
        b'}' + b'N' + b'N' + b't' + R + STOP)
refused(data, '__mro_entries__')
try:
    cp.loads(data)
except cp.ReconstructorTypeError as e:
    assert 'argument 3 (bases) item 0 must be a class' in str(e)
else:
    raise AssertionError('a namespace base accepted')
assert not os.path.exists(marker)
import typing
T = typing.TypeVar('T')
class Box(typing.Generic[T]):
    pass
class Pair(typing.NamedTuple):
    a: int
for k in (Box, Pair):
    k.__module__ = '__main__'
    assert cp.loads(cp.dumps(k)).__name__ == k.__name__
