before = gc.get_threshold()
for size in (10, 20000):
    data = cp.dumps([{} for _ in range(size)])
    for enabled in (True, False):
        (gc.enable if enabled else gc.disable)()
        for load in loaders(data):
            load()
            assert gc.isenabled() == enabled
            assert gc.get_threshold() == before
        for load in loaders(data[:-3]):
            try:
                load()
            except Exception:
                pass
            assert gc.isenabled() == enabled
            assert gc.get_threshold() == before
gc.enable()
# A threshold the user sets during a load stands too.
for case in cases:
    gc.set_threshold(*before)
    run(case[0], 'Threshold', *case[1:])
    assert gc.get_threshold()[0] == 123, (gc.get_threshold(), case)
gc.set_threshold(*before)
# Loads inside loads (a __setstate__ that loads).
class Nested:
    def __setstate__(self, state):
        assert cp.loads(cp.dumps([1, bytes(70000)]))[0] == 1
nested = Nested()
nested.x = 1
cp.loads(cp.dumps([nested, bytes(70000)]))
assert gc.get_threshold() == before and gc.isenabled()
# Automatic collection is really paused during a large load or
# one of unknown size, and a small one is left alone.
seen = []
class Probe:
    def __setstate__(self, state):
        seen.append(gc.get_threshold()[0])
probe = Probe()
probe.x = 1
cp.loads(cp.dumps([probe, bytes(70000)]))
cp.load(io.BytesIO(cp.dumps(probe)))
cp.loads(cp.dumps(probe))
assert seen == [0, 0, before[0]], seen
