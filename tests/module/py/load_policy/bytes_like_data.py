import ccloudpickle as cp, array
data = cp.dumps(lambda: 42)
for d in (bytearray(data), memoryview(data),
          memoryview(bytearray(data))):
    assert cp.loads(d, allow=[])() == 42
try:
    cp.loads([1, 2], allow=[])
except TypeError as e:
    assert 'bytes-like object is required' in str(e)
else:
    raise AssertionError('list accepted')
