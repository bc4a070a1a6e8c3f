import ccloudpickle as cp, pickle
big = [str(i) * 7 for i in range(40000)]
obj = [big, b'x' * 300000, bytearray(b'y' * 200000), 'end']
for proto in (2, 4, 5):
    data = cp.dumps(obj, proto)
    assert type(data) is bytes
    assert data == pickle.dumps(obj, proto), proto
    assert cp.loads(data) == obj
    assert cp.loads(bytearray(data)) == obj
    assert cp._loads_exact(memoryview(data)) == obj
