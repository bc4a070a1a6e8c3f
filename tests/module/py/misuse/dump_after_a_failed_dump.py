import ccloudpickle as cp, io, threading
lock = threading.local()
y = 4
f = lambda: y
buf = io.BytesIO()
p = cp.Pickler(buf)
try:
    p.dump([f, lock])
    raise AssertionError('pickled a lock')
except TypeError:
    pass
assert buf.getvalue() == b'', 'a failed dump wrote'
# f was memoized by the failed dump: it must be written again.
p.dump([f, lambda: y + 1])
g, h = cp.loads(buf.getvalue())
assert g() == 4 and h() == 5
# The same after clear_memo(), loading each pickle alone.
p.clear_memo()
try:
    p.dump([f, {'k': lock}])
    raise AssertionError('pickled a lock')
except TypeError:
    pass
p.dump([f, f])
buf.seek(0)
cp.load(buf)
g1, g2 = cp.load(buf)
assert g1 is g2 and g1() == 4
