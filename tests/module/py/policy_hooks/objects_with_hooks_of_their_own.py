def put(k): return b'r' + struct.pack('<I', k)
def get(k): return b'h' + bytes([k])
def skel(name, ns=b'}'):
    return (g('ccloudpickle', '_make_skeleton_class') + b'(' +
            g('builtins', 'type') + s(name) + b')' + ns + b'N' +
            b'N' + b't' + R)
def setstate(cls_ops):
    return (g('ccloudpickle', '_class_setstate') + cls_ops +
            b'}' + s('__setstate__') + FN + b's' + b'}' +
            b'\x86' + b'\x86' + R + b'0')
ENUM = (g('ccloudpickle', '_make_skeleton_enum') + b'(' +
        g('enum', 'Enum') + b'\x85' + s('E') + s('E') + b'}' +
        s('RED') + i(1) + b's' + s('__main__') + b'N' + b'N' +
        b't' + R)
cases = {
  'BUILD on a class': PROTO + skel('K') + put(0) + b'0' +
      setstate(get(0)) + get(0) + i(0) + B + STOP,
  'BUILD on a function': PROTO + FN + b'}' + s('__setstate__') +
      FN + b's' + B + i(0) + B + STOP,
  'BUILD on an enum member': PROTO + ENUM + put(0) + b'0' +
      setstate(get(0)) + g('builtins', 'getattr') + get(0) +
      s('RED') + b'\x86' + R + i(0) + B + STOP,
  '__init__ made with the class': PROTO +
      skel('K', b'}' + s('__init__') + FN + b's') + b')' + R +
      STOP,
  '__init__ among enum members': PROTO +
      g('ccloudpickle', '_make_skeleton_enum') + b'(' +
      g('enum', 'Enum') + b'\x85' + s('F') + s('F') + b'}' +
      s('__init__') + FN + b's' + s('RED') + i(1) + b's' +
      s('__main__') + b'N' + b'N' + b't' + R + STOP,
  'Enum._convert_': PROTO + g('builtins', 'getattr') + ENUM +
      s('_convert_') + b'\x86' + R + STOP,
}
for what, data in cases.items():
    refused(data, what)
# a dataclass by value keeps loading under a deny list (its
# __repr__ wrapper's globals import _thread)
import dataclasses
@dataclasses.dataclass
class D:
    x: int = 1
D.__module__ = '__main__'
assert cp.loads(cp.dumps(D), deny=['os', 'subprocess'])().x == 1
