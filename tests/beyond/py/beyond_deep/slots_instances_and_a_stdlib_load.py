import ccloudpickle, pickle
class S:
    __slots__ = ('v', 'nxt')
    def __init__(self, v, nxt):
        self.v, self.nxt = v, nxt
h = None
for i in range(20000):
    h = S(i, h)
out = pickle.loads(ccloudpickle.dumps(h))
n = 0
while out is not None:
    assert out.v == 19999 - n
    n += 1
    out = out.nxt
assert n == 20000
l = []
for i in range(100000):
    l = [l, {'i': i}]
assert ccloudpickle.dumps(l) == ccloudpickle.dumps(l)
x = ccloudpickle.loads(ccloudpickle.dumps(l))
for i in reversed(range(100000)):
    assert x[1] == {'i': i}
    x = x[0]
assert x == []
