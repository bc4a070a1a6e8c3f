import ccloudpickle, marshal, pickle, sys
with open(REGRESSIONS + 'code-cache-overflow.pkl', 'rb') as f:
    data = f.read()
try:
    ccloudpickle.loads(data)
except pickle.UnpicklingError as e:
    if sys.version_info[:2] == (3, 11):
        assert 'inline caches' in str(e), e
        assert isinstance(e, ccloudpickle.ReconstructorValueError)
    else:
        assert 'cannot run' in str(e), e
else:
    raise AssertionError('loaded')
if sys.version_info[:2] == (3, 11):
    def f(a, b):
        return a + b
    good = f.__code__.co_code
    # RESUME, LOAD_FAST, LOAD_FAST, BINARY_OP, CACHE, RETURN:
    # the same units with BINARY_OP last, its cache missing.
    assert len(good) == 12 and good[6] == 122, good
    bad = good[:6] + good[10:12] + bytes([9, 0]) + good[6:8]
    m = marshal.dumps(f.__code__)
    assert m.count(good) == 1
    args = ('3.11', ccloudpickle._reduce(f.__code__)[1][1],
            m.replace(good, bad))
    try:
        ccloudpickle._code_unmarshal(*args)
    except ccloudpickle.ReconstructorValueError as e:
        assert "code 'f' ends inside the inline caches" in str(e)
    else:
        raise AssertionError('accepted')
    # The same bytes complete (cache in place) still load.
    ok = ccloudpickle._code_unmarshal('3.11', args[1], m)
    assert ok.co_code == good
    # Such code made otherwise (code.replace checks nothing) is
    # not pickled: both formats and the globals scan read co_code.
    import types
    badcode = f.__code__.replace(co_code=bad)
    def outer():
        return lambda: 0
    nested = outer.__code__.replace(co_consts=tuple(
        badcode if isinstance(c, types.CodeType) else c
        for c in outer.__code__.co_consts))
    for obj in (badcode, types.FunctionType(badcode, {}), nested,
                types.FunctionType(nested, {})):
        for kw in ({}, {'compat': 'cloudpickle'}):
            try:
                ccloudpickle.dumps(obj, **kw)
            except pickle.PicklingError as e:
                assert "code 'f'" in str(e) and 'inline caches' \
                    in str(e), e
            else:
                raise AssertionError('pickled %r' % (obj,))
    # Warm code (specialised instructions) still pickles.
    def warm(n):
        t = 0
        for i in range(n):
            t += len(str(i)) + n
        return t
    for _ in range(200):
        warm(20)
    assert ccloudpickle.loads(ccloudpickle.dumps(warm))(5) == 30
