import ccloudpickle as cp, io
X = [1]
def a(): return X
def b(): return X
buf = io.BytesIO()
p = cp.Pickler(buf)
p.dump(a)
p.clear_memo()
p.dump(b)
p.clear_memo()
p.dump([a, b])
buf.seek(0)
a1 = cp.load(buf)
b1 = cp.load(buf)
a2, b2 = cp.load(buf)
assert a1() == b1() == a2() == b2() == [1]
assert a2.__globals__ is b2.__globals__
assert a2() is b2()
