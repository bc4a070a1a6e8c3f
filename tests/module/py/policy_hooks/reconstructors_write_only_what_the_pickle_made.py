def put(k): return b'r' + struct.pack('<I', k)
def get(k): return b'h' + bytes([k])
def raises(data, exc, frag):
    for kw in POLICIES + ({},):
        try:
            cp.loads(data, **kw)
        except (exc, cp.PolicyError) as e:
            assert kw or frag in str(e), (frag, str(e))
        else:
            raise AssertionError('loaded: ' + frag)
        assert not os.path.exists(marker), frag
import collections, functools
od = collections.OrderedDict
raises(PROTO + g('ccloudpickle', '_module_fill') +
       g('ccloudpickle', 'subimport') + s('collections') +
       b'\x85' + R + b'}' + s('OrderedDict') + FN + b's' +
       b'\x86' + R + b'0' + g('collections', 'OrderedDict') +
       b')' + R + STOP, cp.ReconstructorValueError,
       'a module the pickle made')
assert collections.OrderedDict is od
lc = functools.lru_cache
raises(PROTO + g('ccloudpickle', '_function_fill') +
       g('functools', 'total_ordering') + b'}' +
       s('__globals__') + b'}' + s('lru_cache') + FN + b's' +
       b's' + b'\x86' + R + STOP, cp.ReconstructorValueError,
       'a function the pickle made')
assert functools.lru_cache is lc
W = (g('ccloudpickle', '_singledispatch_new') + FN + b'\x85' +
     R + put(1) + b'0')
raises(PROTO + W + get(1) + b'}' + s('register') + FN + b's' +
       B + b'0' + g('ccloudpickle', '_singledispatch_fill') +
       get(1) + g('builtins', 'int') + g('builtins', 'abs') +
       b'\x86' + b'\x85' + b'}' + b'\x86' + b'\x86' + R +
       STOP, cp.ReconstructorTypeError,
       'register attribute functools.singledispatch did not')
refused(PROTO + g('functools', 'partial') +
        g('builtins', 'sorted') + b']' + i(1) + b'a' + b'\x86' +
        b'}' + s('key') + FN + b's' + b'\x92' + b')' + R + STOP,
        'NEWOBJ_EX keyword arguments')
class S(str):
    pass
try:
    cp._make_skeleton_class(type, 'K', (), {}, S('x'), None)
except cp.ReconstructorTypeError as e:
    assert 'tracker_id) must be str or None' in str(e), e
else:
    raise AssertionError('a str subclass as tracker id')
@functools.singledispatch
def sd(x):
    return 'any'
@sd.register
def _(x: int):
    return 'int'
sd.__module__ = '__main__'
assert cp.loads(cp.dumps(sd))(1) == 'int'
