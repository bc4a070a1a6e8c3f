y = 3
def f(): return y
def g(): return y + 1
# The same bytes as a new Pickler, on every call, in any order:
# no memo entry or globals sharing left from the call before.
first = cp.dumps(f)
assert first == by_pickler(f)
for _ in range(3):
    assert cp.dumps(g) == by_pickler(g)
    assert cp.dumps(f) == first
    assert cp.dumps((f, g)) == by_pickler((f, g))
f2, g2 = cp.loads(cp.dumps((f, g)))
assert f2.__globals__ is g2.__globals__
assert cp.loads(cp.dumps(f)).__globals__ is not cp.loads(cp.dumps(g)).__globals__
# Options of one call do not stick to the next.
assert cp.dumps(f, protocol=2) == by_pickler(f, protocol=2)
assert cp.dumps(f) == first
assert cp.dumps(f, diagnose=False) == first
bufs = []
cp.dumps(f, buffer_callback=bufs.append)
assert cp.dumps(f) == first
# A large pickle (the spare is dropped), then small ones.
big = [lambda i=i: i for i in range(3000)]
assert cp.dumps(big) == by_pickler(big)
assert [h() for h in cp.loads(cp.dumps(big))[:3]] == [0, 1, 2]
assert cp.dumps(f) == first
