import ccloudpickle as cp, pickle
import cpk_fixture_funcs as m
assert cp.dumps(m.triple) == pickle.dumps(m.triple, protocol=5)
cp.register_pickle_by_value(m)
assert cp.list_registry_pickle_by_value() == {'cpk_fixture_funcs'}
data = cp.dumps(m.triple)
f = cp.loads(data)
assert f is not m.triple and f(2) == 6
assert 'UNUSED' not in f.__globals__
cp.unregister_pickle_by_value(m)
assert cp.loads(cp.dumps(m.triple)) is m.triple
assert cp.list_registry_pickle_by_value() == set()
