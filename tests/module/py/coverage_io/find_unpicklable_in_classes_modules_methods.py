import ccloudpickle as cp, threading, types
lock = threading.local()
class Local:
    guard = lock
path, culprit = cp._find_unpicklable(Local)
assert path == '.guard' and culprit is lock, path
m = types.ModuleType('dynamic_mod_for_test')
m.guard = lock
path, culprit = cp._find_unpicklable(m)
assert path == '.guard' and culprit is lock, path
class Holder:
    def meth(self):
        return 1
h = Holder()
h.guard = lock
path, culprit = cp._find_unpicklable(h.meth)
assert path == '.__self__.guard' and culprit is lock, path
assert cp._find_unpicklable(Holder().meth) is None
