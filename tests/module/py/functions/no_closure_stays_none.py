import ccloudpickle as cp
for proto in (2, 5):
    f = cp.loads(cp.dumps(lambda: 1, protocol=proto))
    assert f.__closure__ is None
