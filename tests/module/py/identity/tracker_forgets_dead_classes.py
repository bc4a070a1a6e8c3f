import ccloudpickle as cp, gc, weakref
def make():
    class Temp:
        pass
    return Temp
T = make()
data = cp.dumps(T)
ref = weakref.ref(T)
del T
gc.collect()
assert ref() is None, 'the tracker keeps classes alive'
# Loading it again makes a new class; that one dies too.
U = cp.loads(data)
ref2 = weakref.ref(U)
del U
gc.collect()
assert ref2() is None
