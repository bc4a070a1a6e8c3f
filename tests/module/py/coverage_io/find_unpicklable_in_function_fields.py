import ccloudpickle as cp, threading
lock = threading.local()
def outer():
    held = lock
    def inner():
        return held
    return inner
path, culprit = cp._find_unpicklable(outer())
assert path == '.__closure__[0].cell_contents', path
assert culprit is lock
def dflt(a, b=1, c=lock):
    return a
path, culprit = cp._find_unpicklable(dflt)
assert path == '.__defaults__[1]' and culprit is lock, path
def kw(*, k=lock):
    return k
path, culprit = cp._find_unpicklable(kw)
assert path == ".__kwdefaults__['k']" and culprit is lock, path
def attr():
    return 0
attr.guard = lock
path, culprit = cp._find_unpicklable(attr)
assert path == '.guard' and culprit is lock, path
