import ccloudpickle as cp, pickle, cpk_fixture_funcs as m
import cpk_fixture_pkg, cpk_fixture_pkg.sub
data = cp.dumps([m.triple, m.Point(1, 2)])
for allow in (['cpk_fixture_funcs.*'], ['cpk_fixture_funcs'],
              ['cpk_fixture_funcs.triple', 'cpk_fixture_funcs.Point'],
              ['cpk_fixture_*'], ['*']):
    f, pt = cp.loads(data, allow=allow)
    assert f(2) == 6 and pt.norm() == 5 ** 0.5, allow
for allow in ([], ['cpk_fixture_funcs.triple'],
              ['cpk_fixture_funcs.tri'], ['cpk_fixture_funcsx.*'],
              ['cpk_fixture'], ['cpk_fixture_pkg.*']):
    try:
        cp.loads(data, allow=allow)
    except pickle.UnpicklingError as e:
        assert 'cpk_fixture_funcs.Point' in str(e), str(e)
    else:
        raise AssertionError(allow)
# a submodule is covered by its package's name
d2 = cp.dumps(cpk_fixture_pkg.sub.__dict__.get('sub_func',
              cpk_fixture_pkg.pkg_func))
assert cp.loads(d2, allow=['cpk_fixture_pkg'])() is not None
# any iterable of str
assert cp.loads(data, allow=('cpk_fixture_funcs',))[0](1) == 3
assert cp.loads(data, allow=iter(['cpk_fixture_funcs']))[0](1) == 3
assert cp.loads(data, allow={'cpk_fixture_funcs'})[0](1) == 3
