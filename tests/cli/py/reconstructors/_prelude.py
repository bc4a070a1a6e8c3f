# What every case may use: code with no free variable and with one,
# functions without and with a cell, a cell, a class, the version tag of
# this interpreter's code, and R, whose pickle calls f(*args).
import ccloudpickle as cp, enum, importlib.util, marshal, sys, types
def outer():
    x = 1
    def inner():
        return x
    return inner
code0 = (lambda: 0).__code__
code1 = outer().__code__
fn0 = cp._function_new(code0, {}, None)
fn1 = cp._function_new(code1, {}, 1)
cp._function_fill(fn1, {'__closure__': (1,)})
cell = types.CellType(1)
class C:
    pass
ver = '{}.{}'.format(*sys.version_info[:2])
magic = int.from_bytes(importlib.util.MAGIC_NUMBER, 'little')
class R:
    def __init__(self, f, args):
        self.f, self.args = f, args
    def __reduce__(self):
        return (self.f, self.args)
