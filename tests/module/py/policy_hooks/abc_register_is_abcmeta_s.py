def state_of(cls_ops):
    return (PROTO + g('ccloudpickle', '_class_setstate') +
            cls_ops + b'}' + s('register') + FN + b's' +
            s('_abc_impl') + b']' + g('builtins', 'int') +
            b'a' + b's' + b'}' + b'\x86' + b'\x86' + R + STOP)
plain = (g('ccloudpickle', '_make_skeleton_class') + b'(' +
         g('builtins', 'type') + s('C') + b')' + b'}' + b'N' +
         b'N' + b't' + R)
abcm = (g('ccloudpickle', '_make_skeleton_class') + b'(' +
        g('abc', 'ABCMeta') + s('A') + b')' + b'}' + b'N' +
        b'N' + b't' + R)
try:
    cp.loads(state_of(plain))
except cp.ReconstructorValueError as e:
    assert 'abc.ABCMeta only' in str(e), e
else:
    raise AssertionError('a registry on a class that is no ABC')
A = cp.loads(state_of(abcm))
assert issubclass(int, A) and not os.path.exists(marker)
import abc
class Base(abc.ABC):
    pass
Base.register(float)
Base.__module__ = '__main__'
assert issubclass(float, cp.loads(cp.dumps(Base)))
