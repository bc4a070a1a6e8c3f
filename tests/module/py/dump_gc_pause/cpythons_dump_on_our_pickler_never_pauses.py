p = cp.Pickler(io.BytesIO())
_pickle.Pickler.dump(p, [Seen() for _ in range(1000)])
assert set(seen) == {before[0]}, set(seen)
assert gc.get_threshold() == before
