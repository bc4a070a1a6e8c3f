import ccloudpickle as cp, threading
lock = threading.local()
class Plain:
    pass
p = Plain(); p.x = 1; p.guard = lock
path, culprit = cp._find_unpicklable(p)
assert path == '.guard' and culprit is lock, path
class Slotted:
    __slots__ = ('a', 'guard')
s = Slotted(); s.a = 1; s.guard = lock
path, culprit = cp._find_unpicklable(s, 2)
assert path == '.guard' and culprit is lock, path
class Odd:
    def __reduce_ex__(self, proto):
        return 'not a tuple'
path, culprit = cp._find_unpicklable([Odd()])
assert path == '[0]' and type(culprit) is Odd, path
