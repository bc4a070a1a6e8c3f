import ccloudpickle as cp, threading
lock = threading.local()
def f():
    return lock
path, culprit = cp._find_unpicklable(f)
assert path == ".__globals__['lock']" and culprit is lock
path, culprit = cp._find_unpicklable({'a': [1, (lambda: lock)]})
assert path == "['a'][1].__globals__['lock']", path
assert cp._find_unpicklable([1, 2]) is None
