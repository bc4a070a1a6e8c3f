import ccloudpickle as cp, pickle
w = cp.wrap(lambda: 41 + 1)
for compat in ('cloudpickle', 'cloudpickle2'):
    try:
        cp.dumps(w, compat=compat)
    except pickle.PicklingError as e:
        s = str(e)
        assert s.startswith("Can't pickle a ccloudpickle.wrap() "
                            'wrapper (%s) for ' % type(w).__name__), s
        assert s.endswith('pickle the wrapped object (its '
                          '__wrapped__) instead'), s
    else:
        raise AssertionError(compat)
assert cp.loads(cp.dumps(w))() == 42
