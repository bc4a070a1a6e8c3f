objs = every()
assert cp.dumps(objs) == cp.dumps(objs)
L = threading.Lock()
V = contextvars.ContextVar('v')
a, b, c, d = cp.loads(cp.dumps([L, V, L, V]))
assert a is c and b is d and a is not b
