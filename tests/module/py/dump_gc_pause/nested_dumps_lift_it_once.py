inner = []
class Nest:
    def __reduce__(self):
        cp.dumps([Seen() for _ in range(300)])
        inner.append(gc.get_threshold()[0])
        return (Nest, ())
cp.dumps([Seen() for _ in range(300)] + [Nest() for _ in range(3)]
         + [Seen()])
assert inner == [0, 0, 0], inner
assert seen[-1] == 0
assert gc.get_threshold() == before, gc.get_threshold()
