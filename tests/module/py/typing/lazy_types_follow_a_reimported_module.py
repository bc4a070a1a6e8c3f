import sys, importlib, typing, enum, ccloudpickle as cp
cp.dumps(len)
n = len(sys.modules)
sys.modules.pop('typing'); sys.modules.pop('enum')
sys.modules['cpk_pad1'] = sys; sys.modules['cpk_pad2'] = sys
cp.dumps(len)
del sys.modules['cpk_pad1'], sys.modules['cpk_pad2']
typing2 = importlib.import_module('typing')
enum2 = importlib.import_module('enum')
assert typing2 is not typing and enum2 is not enum
assert len(sys.modules) == n
def make():
    T = typing2.TypeVar('T')
    class Color(enum2.Enum):
        RED = 1
    return T, Color
T2, Color2 = make()
assert b'_make_typevar' in cp.dumps(T2)
assert b'_make_skeleton_enum' in cp.dumps(Color2)
# Objects of the old classes keep their reducer too.
def make_old():
    return typing.TypeVar('U')
assert b'_make_typevar' in cp.dumps(make_old())
T3, C3 = cp.loads(cp.dumps((T2, Color2)))
assert T3 is T2 and C3 is Color2
