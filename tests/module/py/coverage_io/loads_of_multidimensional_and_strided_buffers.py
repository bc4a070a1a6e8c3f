import ccloudpickle as cp, array
d = cp.dumps(list(range(10)))
assert len(d) % 2 == 0, len(d)
m = memoryview(bytearray(d)).cast('B', (2, len(d) // 2))
assert cp.loads(m) == list(range(10))
assert cp._loads_exact(m) == list(range(10))
# Items wider than a byte: still read byte by byte.
d4 = d + b'.' * (-len(d) % 4)
a = array.array('i'); a.frombytes(d4)
assert cp.loads(a) == list(range(10))
