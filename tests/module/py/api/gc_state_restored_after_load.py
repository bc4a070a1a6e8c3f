import ccloudpickle as cp, gc
data = cp.dumps([{} for _ in range(10)])
assert gc.isenabled()
cp.loads(data)
assert gc.isenabled()
try:
    cp.loads(data[:-3])
except Exception:
    pass
assert gc.isenabled(), 'a failed load left the collector off'
gc.disable()
cp.loads(data)
assert not gc.isenabled(), 'load turned the collector on'
gc.enable()
