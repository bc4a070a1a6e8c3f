data = cp.dumps([Seen() for _ in range(1000)])
assert len(cp.loads(data)) == 1000
# Not paused for the first reductions, paused for the rest.
assert seen[0] == before[0] and seen[-1] == 0, (seen[0], seen[-1])
assert seen.count(0) >= 700, seen.count(0)
assert gc.get_threshold() == before, gc.get_threshold()
assert gc.isenabled()
# Pickler.dump the same way.
seen.clear()
cp.Pickler(io.BytesIO()).dump([Seen() for _ in range(1000)])
assert seen[-1] == 0 and gc.get_threshold() == before
