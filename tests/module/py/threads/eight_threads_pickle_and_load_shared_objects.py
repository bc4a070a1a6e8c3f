import ccloudpickle as cp, gc, io, sys, threading, time, traceback
sys.setswitchinterval(1e-5)
SCALE = 3
def make_adder(n):
    def add(x):
        return x + n * SCALE
    return add
square = lambda x: x * x * SCALE
def uses_both(x):
    return square(x) + make_adder(1)(x)
class Shape:
    sides = 4
    def __init__(self, k):
        self.k = k
    def area(self):
        return self.k * self.sides * SCALE
    @classmethod
    def unit(cls):
        return cls(1)
adders = [make_adder(i) for i in range(10)]
shared = cp.dumps([adders[0], square, Shape])
# Large enough for loads to pause the collector (unpickler.c):
# eight threads pausing and resuming it.
big = cp.dumps([adders[1], [list(range(10)) for _ in range(3000)]])
assert len(big) > 65536
before = (gc.isenabled(), gc.get_threshold())
deadline = time.monotonic() + 1.0
errors, counts = [], [0] * 8
start = threading.Barrier(8)
def check(i, loaded):
    f1, f2, sq, ub, S, s, again = loaded
    assert f1(1) == 1 + i * 3 and f2(1) == 1 + ((i + 1) % 10) * 3
    assert sq(2) == 12 and ub(2) == 12 + 2 + 3
    # Functions that shared globals share them again, within one
    # pickle.
    g = f1.__globals__
    assert f2.__globals__ is g and sq.__globals__ is g
    assert ub.__globals__ is g
    assert again is f1
    assert isinstance(s, S) and s.area() == i * 12
    assert S.unit().area() == 12 and S.sides == 4
def worker(i):
    try:
        start.wait()
        while time.monotonic() < deadline:
            n = counts[i]
            f1 = adders[i % 10]
            objs = [f1, adders[(i + 1) % 10], square, uses_both,
                    Shape, Shape(i), f1]
            proto = (2, 4, 5)[n % 3]
            if n % 2:
                data = cp.dumps(objs, protocol=proto)
            else:
                buf = io.BytesIO()
                p = cp.Pickler(buf, proto)
                p.dump(objs)
                data = buf.getvalue()
            check(i, cp.loads(data))
            a, sq, S = cp.loads(shared)
            assert a(2) == 2 and sq(1) == 3 and S(2).area() == 24
            assert a.__globals__ is sq.__globals__
            if n % 5 == 0:
                f, rows = cp.loads(big)
                assert f(0) == 3 and len(rows) == 3000
                assert rows[-1] == list(range(10))
            counts[i] += 1
    except BaseException:
        errors.append(traceback.format_exc())
threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
for t in threads:
    t.start()
for t in threads:
    t.join(30)
assert not any(t.is_alive() for t in threads), 'a thread hangs'
assert not errors, errors[0]
assert all(c > 0 for c in counts), counts
assert (gc.isenabled(), gc.get_threshold()) == before
