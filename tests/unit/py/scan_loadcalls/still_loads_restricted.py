class Plain(enum.Enum):
    A = 1
    B = 2
class Meth:
    y = (1, 'a', frozenset([2]))
    def m(self): return 1
def outer(a, b=3):
    k = a
    return lambda x=b: x + k + len(str(Plain.A))
lam = lambda x: x + 1
for obj in [lam, [lam, f], {'a': lam, 'b': [f]}, Meth, Color,
            [Color.RED, Color.GREEN], Plain, [Plain.A, Plain.B],
            {Plain.A: 1}, outer, outer(2), (Meth, Color)]:
    got = cp.loads(cp.dumps(obj, protocol=5), allow=[])
assert cp.loads(cp.dumps(outer(2)), allow=[])() == 5 + len(str(Plain.A))
assert hits() == []
