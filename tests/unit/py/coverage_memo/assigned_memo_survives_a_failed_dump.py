x = [1, 2, 3]
for P in (cp.Pickler, pickle.Pickler):
    p = P(io.BytesIO(), 4)
    p.memo = {id(x): (0, x)}
    failed_dump(p, x)
    m = p.memo.copy()
    assert m[id(x)] == (0, x) and len(m) == 2, (P, m)
# never assigned, the memo was empty: it is again
p = cp.Pickler(io.BytesIO(), 4)
failed_dump(p, x)
assert p.memo.copy() == {}
# assigned empty, it is known to be empty no more
p = cp.Pickler(io.BytesIO(), 4)
p.memo = {}
failed_dump(p, x)
assert len(p.memo.copy()) == 2
