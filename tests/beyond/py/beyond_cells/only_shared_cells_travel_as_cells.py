def single():
    k = 5
    return lambda: k
b = cp.dumps(single())
assert b'__closure_cells__' not in b
assert b'__closure_cells__' in cp.dumps(pair())
# One function of the pair alone: its cell is still held by
# the other, so it goes as a cell; loading works the same.
i, g = pair()
i2 = cp.loads(cp.dumps(i))
assert i2() == 1 and i2() == 2 and i() == 1
# Same objects, same bytes.
p = pair()
assert cp.dumps(p) == cp.dumps(p)
i, g = cp.loads(cp.dumps(p))
i(); i()
assert g() == 2 and p[1]() == 0
