import ccloudpickle as cp, threading
lock = threading.local()
a = [1]; a.append(a); a.append(lock)
path, culprit = cp._find_unpicklable(a)
assert path == '[2]' and culprit is lock, path
shared = [lock]
path, culprit = cp._find_unpicklable([shared, shared])
assert path == '[0][0]' and culprit is lock, path
