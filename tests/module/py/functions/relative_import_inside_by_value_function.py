import ccloudpickle as cp
import cpk_fixture_pkg
cp.register_pickle_by_value(cpk_fixture_pkg)
def f():
    return 1
import cpk_fixture_pkg.sub as sub
g = cp.loads(cp.dumps(sub.sub_func))
assert g() == 'pkg.sub'
assert g.__globals__['__package__'] == 'cpk_fixture_pkg'
assert g.__globals__['__name__'] == 'cpk_fixture_pkg.sub'
