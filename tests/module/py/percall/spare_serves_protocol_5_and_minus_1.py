import gc
def picklers():
    gc.collect()
    return [o for o in gc.get_objects() if type(o) is cp.Pickler]
def f(): return 1
first = cp.dumps(f)
spare = picklers()
assert len(spare) == 1
for proto in (5, -1, None):
    assert cp.dumps(f, protocol=proto) == first
    assert picklers() == spare, proto
del spare
assert cp.dumps(f, protocol=4) == by_pickler(f, protocol=4)
assert cp.dumps(f, protocol=2**80 - 2**80 + 5) == first
