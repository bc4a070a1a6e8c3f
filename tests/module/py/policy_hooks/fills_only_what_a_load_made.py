def put(k): return b'r' + struct.pack('<I', k)
def get(k): return b'h' + bytes([k])
import decimal, collections, _collections_abc
def fill(target, state):
    return (PROTO + g('ccloudpickle', '_function_fill') + target +
            state + b'\x86' + R + STOP)
GL = b'}' + s('__globals__') + b'}' + s('x') + FN + b's' + b's'
cases = [
  fill(g('decimal', 'DecimalTuple.__new__'), GL),
  fill(g('_collections_abc', 'MappingView.__init__'), GL),
  PROTO + g('ccloudpickle', '_class_setstate') +
      g('collections', 'UserDict') + b'}' + s('__init__') + FN +
      b's' + b'}' + b'\x86' + b'\x86' + R + STOP,
  PROTO + g('ccloudpickle', '_singledispatch_fill') +
      g('builtins', 'abs') + g('builtins', 'int') + FN +
      b'\x86' + b'\x85' + b'}' + b'\x86' + b'\x86' + R + STOP,
]
before = (dict(vars(_collections_abc)),
          dict(decimal.DecimalTuple.__new__.__globals__),
          dict(vars(collections.UserDict)))
for data in cases:
    for kw in POLICIES:
        try:
            cp.loads(data, **kw)
        except cp.PolicyError as e:
            # _collections_abc is private: its import is refused
            assert ('fills what the pickle did not make' in str(e) or
                    '_collections_abc.' in str(e)), e
        else:
            raise AssertionError('filled')
assert before == (dict(vars(_collections_abc)),
                  dict(decimal.DecimalTuple.__new__.__globals__),
                  dict(vars(collections.UserDict)))
# a fill reconstructor used otherwise than called on a
# literal argument tuple: OBJ, a partial, computed args
UD = g('collections', 'UserDict')
ST = b'}' + s('pwned') + i(1) + b's' + b'}' + b'\x86'
CS = g('ccloudpickle', '_class_setstate')
hidden = [
  PROTO + b'(' + CS + UD + ST + b'o' + STOP,
  PROTO + g('functools', 'partial') + CS + UD + b'\x86' + R +
      ST + b'\x85' + R + STOP,
  PROTO + CS + g('builtins', 'tuple') + b']' + b'(' + UD + ST +
      b'e' + b'\x85' + R + R + STOP,
]
for data in hidden:
    for kw in POLICIES:
        try:
            cp.loads(data, **kw)
        except cp.PolicyError:
            pass
        else:
            raise AssertionError('a hidden fill loaded')
assert not hasattr(collections.UserDict, 'pwned')
W = (g('ccloudpickle', '_singledispatch_new') +
     g('builtins', 'abs') + b'\x85' + R + put(1) + b'0')
refused(PROTO + W + g('ccloudpickle', '_singledispatch_fill') +
        get(1) + g('builtins', 'int') + FN + b'\x86' + b'\x85' +
        b'}' + b'\x86' + b'\x86' + R + b'0' + get(1) + i(1) +
        b'\x85' + R + STOP, 'singledispatch fill then call')
