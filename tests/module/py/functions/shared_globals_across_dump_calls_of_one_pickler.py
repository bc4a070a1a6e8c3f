import ccloudpickle as cp, io
X = 1
def a(): return X
def b(): return X
buf = io.BytesIO()
p = cp.Pickler(buf)
p.dump(a)
p.dump(b)
buf.seek(0)
u = cp.Unpickler(buf)
a2 = u.load(); b2 = u.load()
assert a2.__globals__ is b2.__globals__
assert len(p.globals_ref) == 1
