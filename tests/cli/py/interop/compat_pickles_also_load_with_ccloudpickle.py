import ccloudpickle as cp
data = cp.dumps(obj, compat='cloudpickle')
