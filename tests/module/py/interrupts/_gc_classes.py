# Classes defined in __main__ travel by value (the Unpickler path of
# loads); the same classes in a module of sys.modules travel by reference
# (the plain data path). Loads of 64 KiB and more pause the collector,
# smaller ones do not (unpickler.c): `pads` gives both sizes. All must
# leave the collector as the user last set it.
import ccloudpickle as cp, gc, io, sys, types
src = '''
import gc
class Disables:
    def __setstate__(self, state):
        gc.disable()
class Enables:
    def __setstate__(self, state):
        gc.enable()
class Threshold:
    def __setstate__(self, state):
        gc.set_threshold(123)
class Interrupts:
    def __setstate__(self, state):
        raise KeyboardInterrupt('from user code')
'''
exec(src)
mod = types.ModuleType('cpk_gc_mod')
exec(src, mod.__dict__)
sys.modules['cpk_gc_mod'] = mod
kinds = [globals(), mod.__dict__]
pads = [b'', bytes(70000)]
def pickle(ns, name, pad):
    o = ns[name]()
    o.x = 1
    return cp.dumps([pad, o])
def loaders(data):
    yield lambda: cp.loads(data)
    yield lambda: cp.load(io.BytesIO(data))
    yield lambda: cp.Unpickler(io.BytesIO(data)).load()
cases = [(k, p, l) for k in range(2) for p in range(2)
         for l in range(3)]
def run(k, name, p, l):
    return list(loaders(pickle(kinds[k], name, pads[p])))[l]()
assert b'cloudpickle' in pickle(globals(), 'Disables', b'')
assert b'cloudpickle' not in pickle(mod.__dict__, 'Disables', b'')
