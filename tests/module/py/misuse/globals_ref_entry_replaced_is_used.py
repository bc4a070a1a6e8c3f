import ccloudpickle as cp, io
y = 3
buf = io.BytesIO()
p = cp.Pickler(buf)
p.dump(lambda: y)
key, = p.globals_ref
p.globals_ref[key] = {'__name__': __name__, 'marker': 1}
p.dump(lambda: y + 1)
buf.seek(0)
u = cp.Unpickler(buf)
f1, f2 = u.load(), u.load()
assert f1() == 3 and f2() == 4
assert f2.__globals__.get('marker') == 1
assert 'marker' not in f1.__globals__
