# A class by reference rebuilt with state (NEWOBJ or copyreg, then
# BUILD): no rule of a deny list vouches for what it returned, so a deny
# list refuses it and names the class; an allow rule naming the class
# admits it; --strict's allow=[] refuses it.
import pickle
import ccloudpickle as cp
import cpk_fixture_funcs as m

for proto in range(pickle.HIGHEST_PROTOCOL + 1):
    data = pickle.dumps(m.Point(3, 4), protocol=proto)
    try:
        cp.loads(data, deny=['os'])
    except cp.PolicyError as e:
        msg = str(e)
        assert 'cpk_fixture_funcs.Point' in msg, msg
        assert 'BUILD at byte' in msg, msg
        assert 'only an allow rule naming' in msg, msg
    else:
        raise AssertionError('protocol %d: a deny list vouched' % proto)
    allow = ['cpk_fixture_funcs.Point']
    if proto < 2:
        allow.append('builtins.object')
    p = cp.loads(data, allow=allow)
    assert (p.x, p.y) == (3, 4), proto
    p = cp.loads(data, allow=['cpk_fixture_funcs.*', 'builtins.*'])
    assert p.norm() == 5.0
    try:
        cp.loads(data, allow=[])
    except cp.PolicyError:
        pass
    else:
        raise AssertionError('protocol %d: allow=[] admitted' % proto)
