import ccloudpickle as cp
data = cp.dumps(obj, compat='cloudpickle')
assert b'ccloudpickle' not in data
data2 = cp.dumps(obj, protocol=2, compat='cloudpickle')
