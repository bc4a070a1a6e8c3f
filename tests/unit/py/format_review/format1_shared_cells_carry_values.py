import ccloudpickle as cp, pickle, pickletools
def make():
    a = 1
    def g(): return a
    def s(v):
        nonlocal a
        a = v
    return g, s
for proto in range(6):
    data = cp.dumps(make(), format=1, protocol=proto)
    assert b'__closure_cells__' not in data, proto
    assert b'_empty_cell_value' not in data, proto
    g, s = cp.loads(data)
    assert g() == 1, proto
    g, s = pickle.loads(data)
    assert g() == 1, proto
    # formats 2 and later still share the cell
    g, s = cp.loads(cp.dumps(make(), format=2, protocol=proto))
    s(9)
    assert g() == 9, proto
