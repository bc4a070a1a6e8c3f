import ccloudpickle as cp, io
y = 3
buf = io.BytesIO()
p = cp.Pickler(buf)
p.dump(lambda: y)
p.clear_memo()
p.globals_ref.clear()
# Objects made after the base globals dict was freed take its address;
# a pickler still pointing there writes them instead.
decoys = [{'decoy': i} for i in range(200)]
p.dump(lambda: y + 1)
# After clear_memo, each pickle loads on its own.
buf.seek(0)
f1, f2 = cp.load(buf), cp.load(buf)
assert f1() == 3 and f2() == 4
assert 'decoy' not in f2.__globals__, f2.__globals__
# cloudpickle's setdefault: a fresh entry after the clear.
assert len(p.globals_ref) == 1
