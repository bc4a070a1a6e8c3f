import ccloudpickle as cp, io, pickletools
y = 7
b1, b2, b3 = io.BytesIO(), io.BytesIO(), io.BytesIO()
p = cp.Pickler(b1)
p.dump(lambda: y)
first = b1.getvalue()
p.__init__(b2, 2)
assert p.proto == 2
assert len(p.globals_ref) == 0, 'globals shared across __init__'
# Objects made after the base globals dict was freed take its address;
# a pickler still pointing there writes them instead.
decoys = [{'decoy': i} for i in range(200)]
p.dump(lambda: y + 1)
assert b1.getvalue() == first, 'wrote to the old file'
assert b2.getvalue()[:2] == b'\x80\x02'
g = cp.loads(b2.getvalue())
assert g() == 8 and 'decoy' not in g.__globals__
p.__init__(b3, protocol=5, compat='cloudpickle')
p.dump(lambda: y + 2)
data = b3.getvalue()
assert data[:2] == b'\x80\x05' and b'cloudpickle' in data
assert cp.loads(data)() == 9
# Keyword and positional forms agree.
p.__init__(file=b1, protocol=3)
assert p.proto == 3
