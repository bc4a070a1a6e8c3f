import ccloudpickle as cp, pickle
payload = bytearray(b'xy' * 100000)
bufs = []
data = cp.dumps(pickle.PickleBuffer(payload), protocol=5,
                buffer_callback=bufs.append)
assert len(bufs) == 1 and len(data) < 100
assert bytes(cp.loads(data, buffers=bufs)) == bytes(payload)
# A callback returning True keeps that buffer in band.
data = cp.dumps(pickle.PickleBuffer(payload), protocol=5,
                buffer_callback=lambda b: True)
assert len(data) > len(payload)
assert cp.loads(data) == payload
