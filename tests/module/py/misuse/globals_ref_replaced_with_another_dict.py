import ccloudpickle as cp, io
y = 5
buf = io.BytesIO()
p = cp.Pickler(buf)
p.dump(lambda: y)
p.clear_memo()
p.globals_ref = {}
# Objects made after the base globals dict was freed take its address;
# a pickler still pointing there writes them instead.
decoys = [{'decoy': i} for i in range(200)]
p.dump(lambda: y * 2)
assert len(p.globals_ref) == 1
buf.seek(0)
f1, f2 = cp.load(buf), cp.load(buf)
assert f1() == 5 and f2() == 10
assert 'decoy' not in f2.__globals__
