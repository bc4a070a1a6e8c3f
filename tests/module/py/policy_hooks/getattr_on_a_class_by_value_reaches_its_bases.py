P = (g('ccloudpickle', '_make_skeleton_class') + b'(' +
     g('builtins', 'type') + s('P') + g('pathlib', 'PosixPath') +
     b'\x85' + b'}' + b'N' + b'N' + b't' + R)
data = (PROTO + g('builtins', 'getattr') + P + s('write_text') +
        b'\x86' + R + g('pathlib', 'Path') + s(marker) +
        b'\x85' + R + s('x') + b'\x86' + R + STOP)
refused(data, 'write_text')
sys.modules.pop('pwd', None)
owner = (PROTO + g('builtins', 'getattr') + P + s('owner') +
         b'\x86' + R + g('pathlib', 'Path') + s('/') + b'\x85' +
         R + b'\x85' + R + STOP)
refused(owner, 'owner')
assert 'pwd' not in sys.modules
import enum
class K:
    @classmethod
    def make(cls):
        return cls()
class Color(enum.IntEnum):
    RED = 1
for o in (K, Color):
    o.__module__ = '__main__'
m = cp.loads(cp.dumps(K.make), allow=[])
assert type(m()).__name__ == 'K'
c = cp.loads(cp.dumps(Color.RED), allow=[])
assert c == 1 and type(c).__name__ == 'Color'
