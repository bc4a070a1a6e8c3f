import ccloudpickle as cp, pickle
buf = bytearray(b'x' * 1000)
pb = pickle.PickleBuffer(buf)
buffers = []
data = cp.dumps(pb, protocol=5, buffer_callback=buffers.append)
assert len(data) < 100 and len(buffers) == 1
out = cp.loads(data, buffers=buffers)
assert bytes(out) == bytes(buf)
