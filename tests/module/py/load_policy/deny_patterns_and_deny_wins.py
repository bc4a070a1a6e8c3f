import ccloudpickle as cp, pickle, collections
import cpk_fixture_funcs as m
data = cp.dumps([m.triple, collections.OrderedDict(a=1), {1}])
def refused(frag, **kw):
    try:
        cp.loads(data, **kw)
    except pickle.UnpicklingError as e:
        assert frag in str(e), (frag, str(e))
    else:
        raise AssertionError(kw)
# deny only: everything else passes, even non-plain names
f, od, s = cp.loads(data, deny=['os', 'subprocess'])
assert f(1) == 3 and od == {'a': 1} and s == {1}
assert cp.loads(data, deny=[])[0](2) == 6
refused('cpk_fixture_funcs.triple', deny=['cpk_fixture_funcs'])
refused('collections.OrderedDict', deny=['collections.*'])
# deny wins over allow
refused('refuses 1 import: cpk_fixture_funcs.triple',
        allow=['cpk_fixture_funcs.*'],
        deny=['cpk_fixture_funcs.triple'])
refused('collections.OrderedDict', allow=['collections'],
        deny=['collections.OrderedDict'])
# deny=None and allow=None are no policy at all
assert cp.loads(data, allow=None, deny=None)[0](1) == 3
