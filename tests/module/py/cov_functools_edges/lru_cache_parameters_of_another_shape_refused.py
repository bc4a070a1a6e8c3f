for bad in ({'maxsize': 'big', 'typed': False}, [1],
            {'typed': False}, {'maxsize': 3}):
    w.cache_parameters = lambda bad=bad: bad
    for kw in ({}, {'compat': 'cloudpickle'}):
        try:
            cp.dumps(w, **kw)
        except pickle.PicklingError as e:
            assert 'by value: its cache_parameters() is not ' \
                "{'maxsize': int or None, 'typed': ...}" \
                in str(e), e
        else:
            raise AssertionError('pickled with %r' % (bad,))
