import ccloudpickle as cp, math
def f(x):
    return math.sqrt(x) + 1
for proto in (2, 3, 5):
    for compat in (None, 'cloudpickle'):
        if compat and proto < 3:
            continue  # see by_value_objects_load_restricted
        g = cp.loads(cp.dumps(f, protocol=proto, compat=compat),
                     allow=[])
        assert g(9) == 4.0
