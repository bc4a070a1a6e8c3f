p = cp.Pickler(io.BytesIO())
class Again:
    def __reduce__(self):
        p.dump([Seen() for _ in range(300)])
        return (Again, ())
try:
    p.dump([Seen() for _ in range(300)] + [Again()])
except cp.PicklingError as e:
    assert 'while this Pickler is dumping' in str(e), e
else:
    raise AssertionError('nested dump of one Pickler ran')
assert gc.get_threshold() == before, gc.get_threshold()
buf = io.BytesIO()
q = cp.Pickler(buf)
q.dump([1, 2])
assert cp.loads(buf.getvalue()) == [1, 2]
