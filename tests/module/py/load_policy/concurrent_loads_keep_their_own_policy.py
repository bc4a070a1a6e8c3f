import ccloudpickle as cp, pickle, threading, time, sys
import cpk_fixture_funcs as m, cpk_fixture_pkg as pkg
class Nap:
    def __reduce__(self):
        return (time.sleep, (0.0005,))
da = cp.dumps([Nap(), m.triple, Nap(), m.Point])
db = cp.dumps([Nap(), pkg.pkg_func, Nap(), pkg.pkg_func])
errors = []
start = threading.Barrier(2)
def run(data, allow, other, check):
    start.wait()
    try:
        for i in range(150):
            check(cp.loads(data, allow=allow))
            try:
                cp.loads(data, allow=other)
            except pickle.UnpicklingError:
                pass
            else:
                errors.append('other policy permitted')
    except BaseException as e:
        errors.append(repr(e))
def ca(o):
    assert o[1](1) == 3 and o[3] is m.Point
def cb(o):
    assert o[1] is pkg.pkg_func
sys.setswitchinterval(1e-5)
ta = threading.Thread(target=run, args=(da,
    ['time.sleep', 'cpk_fixture_funcs'],
    ['time.sleep', 'cpk_fixture_pkg'], ca))
tb = threading.Thread(target=run, args=(db,
    ['time.sleep', 'cpk_fixture_pkg'],
    ['time.sleep', 'cpk_fixture_funcs'], cb))
ta.start(); tb.start(); ta.join(); tb.join()
assert not errors, errors[:3]
