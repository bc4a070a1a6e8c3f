import sys, types
class Lock:
    raises = None
    def acquire(self, *a):
        return True
    def release(self):
        if self.raises is not None:
            raise self.raises
class Refusing(dict):
    def setdefault(self, *a):
        raise TypeError('refused')
stand = types.ModuleType('cloudpickle.cloudpickle')
stand._PICKLE_BY_VALUE_MODULES = set()
stand._DYNAMIC_CLASS_TRACKER_BY_CLASS = Refusing()
stand._DYNAMIC_CLASS_TRACKER_BY_ID = Refusing()
stand._DYNAMIC_CLASS_TRACKER_LOCK = lock = Lock()
sys.modules['cloudpickle.cloudpickle'] = stand
import ccloudpickle as cp
class A:
    pass
lock.raises = RuntimeError('ordinary')
assert cp.loads(cp.dumps(A)) is A
class K:
    pass
lock.raises = KeyboardInterrupt
