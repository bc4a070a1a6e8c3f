import ccloudpickle, pickle, resource
payload = bytearray(b'x' * (1 << 20))
def faults(keep):
    d = None
    for _ in range(3):
        d = ccloudpickle.dumps(payload)
    f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(20):
        if keep:
            d = ccloudpickle.dumps(payload)
        else:
            ccloudpickle.dumps(payload)
    f1 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    assert pickle.loads(d) == payload
    return (f1 - f0) / 20
dropped = faults(False)
kept = faults(True)
assert dropped < 64, ('page faults per dump, dropped', dropped)
assert kept < 160, ('page faults per dump, kept', kept)
