import ccloudpickle as cp, gc, weakref
gc.disable()
class Thing:
    pass
t = Thing()
f = lambda: t
ref = weakref.ref(t)
cp.dumps(f)
cp.dumps([t, f], protocol=2)
del t, f
assert ref() is None, 'dumps kept the object alive'
gc.enable()
