cp.dumps([Seen() for _ in range(100)])
assert set(seen) == {before[0]}, set(seen)
assert gc.get_threshold() == before
