import ccloudpickle as c, gc, threading, time, builtins
class Slow:
    def __setstate__(self, s):
        time.sleep(0.3)
big = c.dumps([[i] for i in range(20000)])
bigslow = c.dumps([Slow()] + [[i] for i in range(20000)])
sys_modules = __import__('sys').modules
sys_modules.pop('gc', None)
real_import = builtins.__import__
def slow_import(name, *a, **k):
    if name == 'gc' and threading.current_thread().name == 'A':
        time.sleep(0.2)
    return real_import(name, *a, **k)
before = gc.get_threshold()
builtins.__import__ = slow_import
try:
    ta = threading.Thread(target=lambda: c.loads(big), name='A')
    tb = threading.Thread(target=lambda: (time.sleep(0.05),
                                          c.loads(bigslow)), name='B')
    ta.start(); tb.start(); ta.join(); tb.join()
finally:
    builtins.__import__ = real_import
assert gc.get_threshold() == before, (gc.get_threshold(), before)
