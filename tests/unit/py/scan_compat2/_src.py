# Module source, compiled as /src/c2.py: a closure (inner), a lambda with
# defaults, a helper function its globals name, a class with methods.
import sys, types, pickletools, ccloudpickle as cp
SRC = '''\
import math
K = 3
def helper(v):
    return v + 1
def outer(a, b=2, *args, c, d=4, **kw):
    z = 5
    def inner(x, /, y=1, *rest, flag, **opts):
        return x + y + z + a + K + math.floor(1.5) + helper(0)
    return inner
lam = lambda p, q=2, r='s': p * q
class Shape:
    sides = 4
    def area(self, w, h=1):
        return w * h * K
    @classmethod
    def make(cls, *, n=0):
        return cls()
'''
exec(compile(SRC, '/src/c2.py', 'exec'), globals())
def c2(obj, proto):
    d = cp.dumps(obj, protocol=proto, compat='cloudpickle2')
    assert b'_make_function' not in d and b'LambdaType' in d, d
    return d
class R:
    def __init__(self, fn, args): self.fn, self.args = fn, args
    def __reduce__(self): return (self.fn, self.args)
    def __call__(self): pass  # R(R(...), ()) may be pickled
def op_swap(data, old, new):
    '''data with its last opcode `old` replaced by `new`.'''
    pos = [p for o, a, p in pickletools.genops(data) if o.name == old]
    return data[:pos[-1]] + new + data[pos[-1] + 1:]
