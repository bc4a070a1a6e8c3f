import sys
for name in ('opcode', 'dis'):
    sys.modules.pop(name, None)
import ccloudpickle as cp
def f(x):
    return [y * 2 for y in range(x)]
f(3)
g = cp.loads(cp.dumps(f))
assert g(3) == [0, 2, 4]
assert 'opcode' not in sys.modules, 'opcode imported'
