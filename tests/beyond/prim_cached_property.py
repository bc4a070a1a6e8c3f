# functools.cached_property on a class defined by value (3.8-3.11 keep an
# RLock in it, which made the class unpicklable; 3.12 dropped the lock).
import functools


class Circle:
    calls = 0

    def __init__(self, r):
        self.r = r

    @functools.cached_property
    def area(self):
        type(self).calls += 1
        return 3 * self.r * self.r


def make():
    c = Circle(2)
    assert c.area == 12
    return Circle, c
# --- load ---
import functools
Circle, c = obj
assert isinstance(Circle.__dict__["area"], functools.cached_property)
assert Circle.__dict__["area"].attrname == "area"
assert c.area == 12 and c.__dict__["area"] == 12  # cached value travelled
base = Circle.calls
a, b = Circle(1), Circle(5)
assert a.area == 3 and a.area == 3 and b.area == 75 and b.area == 75
assert Circle.calls == base + 2, (Circle.calls, base)  # once per instance
lock = getattr(Circle.__dict__["area"], "lock", None)
if lock is not None:          # 3.11 and earlier: a new, unlocked RLock
    assert lock.acquire(blocking=False)
    lock.release()
