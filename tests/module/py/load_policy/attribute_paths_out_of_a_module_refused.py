def glob(m, n):
    return (b'\x8c' + bytes([len(m)]) + m.encode() + b'\x8c' +
            bytes([len(n)]) + n.encode() + b'\x93')
cmd = ('touch ' + marker).encode()
call = b'\x8c' + bytes([len(cmd)]) + cmd + b'\x85R.'
path = b'\x80\x04' + glob('dataclasses', 'inspect.os.system') + call
tail = b'\x80\x04' + glob('uuid', 'os.system') + call
mod = b'\x80\x04' + glob('uuid', 'os') + b'.'
chain = (b'\x80\x04' + glob('builtins', 'getattr') + b'\x94' +
         glob('builtins', 'getattr') + glob('dataclasses', 'inspect')
         + b'\x8c\x02os\x86R\x8c\x06system\x86R' + call)
refused(path, 'refuses 1 import: dataclasses.inspect.os.system '
        '(byte 34)', allow=[])
refused(path, 'dataclasses.inspect.os.system', deny=['os'])
refused(tail, 'refuses 1 import: uuid.os.system', allow=[])
refused(tail, 'uuid.os.system', deny=['os'])
refused(tail, 'uuid.os.system', deny=['os.system'])
# restricted: uuid + os names the module os (pkscan.h)
refused(mod, 'refuses 1 import: uuid.os (byte 12)', allow=[])
# a module reached through an attribute is dangerous
# (pkscan.h), so deny-only refuses it statically; an allow
# rule naming it leaves find_class's own refusal
refused(mod, 'refuses 1 import: uuid.os (byte 12)',
        deny=['nothing'])
refused(mod, "find_class('uuid', 'os'): it gives a module "
        'object', allow=['uuid'])
refused(chain, 'dataclasses.inspect.os (byte ', allow=[])
refused(chain, 'dataclasses.inspect.os.system (byte ',
        deny=['os'])
refused(chain, 'dataclasses.inspect.os.system (byte ',
        deny=['posix'])
refused(chain, "find_class('dataclasses', 'inspect'): it gives "
        'a module object', allow=['dataclasses'])
assert not exists()
# enums still load: enum.Enum.__new__ is a path of dunders
import enum
class E(enum.Enum):
    A = 1
assert b'Enum.__new__' in cp.dumps(E)
assert cp.loads(cp.dumps(E), allow=[]).A.value == 1
# a classmethod of a plain class by reference needs its name
import collections
fk = pickle.dumps(collections.OrderedDict.fromkeys, protocol=4)
refused(fk, 'collections.OrderedDict.fromkeys', allow=[])
assert cp.loads(fk, allow=['collections.OrderedDict'])('ab') == \
    {'a': None, 'b': None}
