import ccloudpickle as cp, io
buf = io.BytesIO()
p = cp.Pickler(buf, protocol=3)
shared = [1]
p.dump(shared)
p.dump(shared)
p.clear_memo()
p.dump(shared)
buf.seek(0)
u = cp.Unpickler(buf)
a, b = u.load(), u.load()
assert a is b
c = cp.Unpickler(io.BytesIO(buf.getvalue()[buf.tell():])).load()
assert c == [1]
