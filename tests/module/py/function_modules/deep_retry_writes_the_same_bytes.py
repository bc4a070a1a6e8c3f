import ccloudpickle as cp, sys, math, os
x, y = 1, 2
def f_a():
    return (math, os, x, y)
def f_b():
    return (os,)
def f_z():
    return (y, x, os, math)
def deep(n):
    d = None
    for _ in range(n):
        d = [d]
    return d
obj = [f_a, f_b, f_z, deep(3000)]
old = sys.getrecursionlimit()
b1 = cp.dumps(obj)
sys.setrecursionlimit(100000)
try:
    b2 = cp.dumps(obj)
finally:
    sys.setrecursionlimit(old)
assert b1 == b2, (len(b1), len(b2))
