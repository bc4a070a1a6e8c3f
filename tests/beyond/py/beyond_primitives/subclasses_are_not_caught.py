import ccloudpickle as cp, threading, _thread, struct, weakref
class MyEvent(threading.Event): pass
class MySem(threading.Semaphore): pass
class MyRLock(_thread.RLock): pass
class MyStruct(struct.Struct): pass
class MyWVD(weakref.WeakValueDictionary): pass
cases = [(MyEvent(), b'_make_event'), (MySem(1), b'_make_semaphore'),
         (MyRLock(), b'_make_lock'), (MyStruct('i'), b'_make_struct'),
         (MyWVD(), b'_make_weakdict')]
for x, ours in cases:
    try:
        data = cp.dumps(x)
    except Exception:
        continue
    assert ours not in data, (x, ours)
try:
    cp._reduce(MyEvent())
except TypeError as e:
    assert 'no reducer for' in str(e), e
else:
    raise AssertionError('_reduce took a subclass')
