import sys, types, ccloudpickle as c
class Tracker:
    def get(self, key):
        raise MemoryError('tracker')
m = types.ModuleType('cloudpickle.cloudpickle')
m._DYNAMIC_CLASS_TRACKER_BY_CLASS = Tracker()
m._DYNAMIC_CLASS_TRACKER_BY_ID = Tracker()
sys.modules['cloudpickle.cloudpickle'] = m
C = type('C', (), {})
try:
    c.dumps(C)
    raise AssertionError('tracker: MemoryError swallowed')
except MemoryError:
    pass
del sys.modules['cloudpickle.cloudpickle']
class M(types.ModuleType):
    def __getattr__(self, n):
        raise MemoryError('lazy')
sys.modules['_weakrefset'] = M('_weakrefset')
sys.modules['cpk_zzz'] = types.ModuleType('cpk_zzz')
try:
    c.dumps(len)
    raise AssertionError('lazy: MemoryError swallowed')
except MemoryError:
    pass
