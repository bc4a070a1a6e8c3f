import sys, types, ccloudpickle as c
c.dumps(len)
class M(types.ModuleType):
    n = 0
    def __getattr__(self, name):
        M.n += 1
        if M.n == 1:
            raise KeyboardInterrupt
        raise AttributeError(name)
sys.modules.pop('typing', None)
import typing
sys.modules['logging'] = M('logging')
try:
    c.dumps(len)
    raise AssertionError('no KeyboardInterrupt')
except KeyboardInterrupt:
    pass
def make():
    return typing.TypeVar('T')
assert b'_make_typevar' in c.dumps(make())
