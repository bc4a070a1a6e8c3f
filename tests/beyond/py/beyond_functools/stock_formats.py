# Stock formats take functools' own dispatcher by value, its
# weak dicts rebuilt as per-process objects (primitives.c):
# no reconstructor of ours, and stock cloudpickle loads it
# (checked below).
for c in ('cloudpickle3', 'cloudpickle', 'cloudpickle2'):
    data = cp.dumps(d, compat=c)
    assert b'ccloudpickle' not in data and b'_singledispatch' not in data
    data = cp.dumps(fib, compat=c)
    assert b'ccloudpickle' not in data and b'_lru_cache_wrapper' in data
