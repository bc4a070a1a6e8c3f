import sys
old = sys.version_info < (3, 10)
for compat in ('cloudpickle3', 'cloudpickle2', '2.1'):
    for proto in (2, 4, 5):
        objs = every()
        if old:  # 3.9's ContextVar is builtins.ContextVar
            for cv in objs[8:10]:
                try:
                    cp.dumps(cv, compat=compat)
                except TypeError as e:
                    assert 'ContextVar' in str(e), e
                else:
                    raise AssertionError('3.9 ContextVar')
            objs[8:10] = [None, None]
        data = cp.dumps(objs, protocol=proto, compat=compat)
        assert b'ccloudpickle' not in data, (compat, proto)
        o = pickle.loads(data)
        if old:
            o[8:10] = every()[8:10]
        check(o)
