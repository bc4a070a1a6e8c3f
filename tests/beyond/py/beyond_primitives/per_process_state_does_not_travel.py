import ccloudpickle as cp, threading, contextvars
L, R, E = threading.Lock(), threading.RLock(), threading.Event()
P = threading._PyRLock()
for x in (L, R, P):
    x.acquire()
E.set()
V = contextvars.ContextVar('v', default=0)
W = contextvars.ContextVar('w')
V.set(5)
W.set(6)
l, r, e, p, v, w = cp.loads(cp.dumps([L, R, E, P, V, W]))
assert not l.locked() and l is not L
assert r.acquire(blocking=False) and p.acquire(blocking=False)
assert not e.is_set()
assert V.get() == 5 and v.get() == 0 and w.get(None) is None
assert v is not V and v.name == 'v'
