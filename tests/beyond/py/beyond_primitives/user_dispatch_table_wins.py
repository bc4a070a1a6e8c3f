import ccloudpickle as cp, io, threading
L = threading.Lock()
f = io.BytesIO()
p = cp.Pickler(f)
p.dispatch_table = {type(L): lambda l: (int, (7,))}
p.dump([L])
assert cp.loads(f.getvalue()) == [7]
assert cp._reduce(L)[0] is cp._make_lock
