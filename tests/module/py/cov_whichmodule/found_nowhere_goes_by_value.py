data = cp.dumps(f)
assert 'cov_home' not in names(data)
g = cp.loads(data)
assert g is not f and g() == 1
