import ccloudpickle as cp, pickle, sys, types
m = types.ModuleType('cpk_byval_broken')
sys.modules['cpk_byval_broken'] = m
exec('def k():\n    return 1\n', m.__dict__)
cp.register_pickle_by_value(m)
try:
    for breaking in ('int', 'missing'):
        if breaking == 'int':
            m.__name__ = 7
        else:
            del m.__name__
        for compat in (None, 'cloudpickle'):
            try:
                data = cp.dumps(m.k, compat=compat)
            except pickle.PicklingError as e:
                assert 'its __name__ is' in str(e), str(e)
            else:
                raise AssertionError((breaking, compat, data))
finally:
    del sys.modules['cpk_byval_broken']
u = types.ModuleType.__new__(types.ModuleType)
sys.modules['cpk_no_namespace'] = u
try:
    K = type('K', (), {'__module__': 'cpk_no_namespace'})
    try:
        K2 = cp.loads(cp.dumps(K))
        assert K2.__name__ == 'K'
    except pickle.PicklingError as e:
        assert 'its __name__ is missing' in str(e), str(e)
finally:
    del sys.modules['cpk_no_namespace']
# (3.11 and later give it an empty namespace to fill)
try:
    cp._module_fill(u, {'a': 1})
except cp.ReconstructorValueError as e:
    assert sys.version_info < (3, 11), e
    assert 'without a namespace' in str(e), str(e)
else:
    assert sys.version_info >= (3, 11)
    assert u.a == 1
