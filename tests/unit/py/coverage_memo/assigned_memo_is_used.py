x = [1, 2, 3]
q = cp.Pickler(io.BytesIO(), 4)
q.dump(x)
out = []
for P in (cp.Pickler, pickle.Pickler):
    f = io.BytesIO()
    p = P(f, 4)
    p.memo = q.memo
    p.dump(x)
    out.append(f.getvalue())
assert out[0] == out[1] == b'\x80\x04h\x00.', out
