import math
SCALE = 3
def make(a):
    def t(x):
        return math.floor(x + a) * SCALE
    return t
fs = [make(i) for i in range(200)]
data = cp.dumps(fs)
args = made(data)
assert len(args) == 200
assert len({id(a[4]) for a in args}) == 1
assert len({id(a[3]['__globals__']) for a in args}) == 1
assert len(data) < 200 * 40, len(data)
gs = cp.loads(data)
assert [g(1.5) for g in gs] == [f(1.5) for f in fs]
assert gs[0].__globals__ is gs[199].__globals__
# a second def in the same dump gets its own pairs
import os
def other():
    return os.sep
args = made(cp.dumps([fs[0], other, fs[1]]))
assert [a[4] for a in args] == [('math', 'math'), ('os', 'os'),
                                ('math', 'math')], args
