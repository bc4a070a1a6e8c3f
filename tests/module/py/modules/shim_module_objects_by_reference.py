import ccloudpickle as cp, sys, types
real = types.ModuleType('cpk_shimmed')
exec('def f(x):\n    return x + 1\nclass K:\n    pass\n',
     real.__dict__)
class Shim(types.ModuleType):
    def __init__(self, wrapped):
        object.__setattr__(self, '_wrapped', wrapped)
    def __getattr__(self, name):
        return getattr(self._wrapped, name)
sys.modules['cpk_shimmed'] = Shim(real)
try:
    for compat in (None, 'cloudpickle'):
        for obj in (real.f, real.K):
            data = cp.dumps(obj, compat=compat)
            assert b'cpk_shimmed' in data and len(data) < 60, data
            assert cp.loads(data) is obj
        k = cp.loads(cp.dumps(real.K(), compat=compat))
        assert type(k) is real.K
finally:
    del sys.modules['cpk_shimmed']
