y = 5
def f(): return y
class Box:
    def __init__(self, inner):
        self.inner = inner
    def __reduce__(self):
        return (cp.loads, (cp.dumps(self.inner),))
obj = [f, Box(f), Box([Box(f)]), f]
data = cp.dumps(obj)
assert data == by_pickler(obj)
a, b, c, d = cp.loads(data)
assert a is d and a() == b() == c[0]() == 5
assert cp.dumps(f) == by_pickler(f)
