data = ccloudpickle.dumps(obj, compat='cloudpickle')
