import ccloudpickle as cp, numpy as np, pickle
a = np.arange(1 << 18, dtype=np.float64)
bufs = []
data = cp.dumps(a, protocol=5, buffer_callback=bufs.append)
assert len(data) < 1000 and len(bufs) == 1
raw = bufs[0].raw()
view = np.frombuffer(raw, dtype=np.float64)
assert view.ctypes.data == a.ctypes.data, 'the buffer was copied'
b = cp.loads(data, buffers=bufs)
assert (b == a).all()
# Without the buffers, loading refuses.
try:
    cp.loads(data)
    raise AssertionError('loaded without its buffers')
except pickle.UnpicklingError:
    pass
