import ccloudpickle as cp, sys, types
m = types.ModuleType('cov_busy')
class Broken:
    def __bool__(self):
        raise RuntimeError('cannot tell')
class Spec:
    _initializing = Broken()
m.__spec__ = Spec()
sys.modules['cov_busy'] = m
cp.subimport('cov_busy')
