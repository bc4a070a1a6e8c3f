import ccloudpickle as cp, threading
lock = threading.local()
deep = lock
for _ in range(60):
    deep = [deep]
path, culprit = cp._find_unpicklable(deep)
assert path == '[0]' * 40, (len(path), path)
assert type(culprit) is list
wide = [[i] for i in range(2100)] + [lock]
path, culprit = cp._find_unpicklable(wide)
assert path == '[2100]' and culprit is lock, path
names = ['g%d' % i for i in range(2100)]
ns = {n: [i] for i, n in enumerate(names)}
ns['lock'] = lock
exec('def f():\n    return (' + ', '.join(names) + ', lock)\n', ns)
path, culprit = cp._find_unpicklable(ns['f'])
assert path == '' and culprit is ns['f'], path
wide2 = [[i] for i in range(100)] + [lock]
path, culprit = cp._find_unpicklable(wide2)
assert path == '[100]' and culprit is lock, path
