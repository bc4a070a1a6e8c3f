import ccloudpickle as cp
import cpk_fixture_pkg, cpk_fixture_pkg.sub
cp.register_pickle_by_value(cpk_fixture_pkg)
data = cp.dumps([cpk_fixture_pkg.pkg_func, cpk_fixture_pkg.sub.sub_func])
a, b = cp.loads(data)
assert a is not cpk_fixture_pkg.pkg_func
assert b is not cpk_fixture_pkg.sub.sub_func
assert (a(), b()) == ('pkg', 'pkg.sub')
# Registering a submodule does not cover its parent.
cp.unregister_pickle_by_value(cpk_fixture_pkg)
cp.register_pickle_by_value(cpk_fixture_pkg.sub)
assert cp.loads(cp.dumps(cpk_fixture_pkg.pkg_func)) is cpk_fixture_pkg.pkg_func
assert cp.loads(cp.dumps(cpk_fixture_pkg.sub.sub_func)) is not cpk_fixture_pkg.sub.sub_func
