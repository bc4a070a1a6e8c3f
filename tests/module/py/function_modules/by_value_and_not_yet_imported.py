dyn = types.ModuleType('dyn_fm')
dyn.V = 7
def d():
    return dyn.V
data = cp.dumps(d)
assert all(len(a) == 4 for a in made(data))
assert cp.loads(data)() == 7
import colorsys
def c():
    return colorsys.rgb_to_hsv(1, 0, 0)
data = cp.dumps(c)
del sys.modules['colorsys']
g = cp.loads(data)
assert 'colorsys' in sys.modules
assert g.__globals__['colorsys'] is sys.modules['colorsys']
assert g() == (0.0, 1.0, 1.0)
