# One of each, as a list.
import ccloudpickle as cp, threading, _thread, contextvars, struct
import pickle, weakref
k = int  # weakrefable, plain, by name: no cloudpickle, allow=[]
def every():
    L = threading.Lock()
    return [L, threading.RLock(), threading._PyRLock(),
            threading.Event(), threading.Condition(L),
            threading.Condition(), threading.Semaphore(2),
            threading.BoundedSemaphore(3),
            contextvars.ContextVar('a'),
            contextvars.ContextVar('b', default=[1]),
            struct.Struct('<hq'), weakref.WeakValueDictionary({1: k}),
            weakref.WeakKeyDictionary({k: 2}), k]
def check(o):
    assert [type(x) for x in o] == [_thread.LockType, _thread.RLock,
        threading._PyRLock, threading.Event, threading.Condition,
        threading.Condition, threading.Semaphore,
        threading.BoundedSemaphore, contextvars.ContextVar,
        contextvars.ContextVar, struct.Struct,
        weakref.WeakValueDictionary, weakref.WeakKeyDictionary,
        type(o[-1])], o
    assert o[4]._lock is o[0] and type(o[5]._lock) is _thread.RLock
    assert o[6]._value == 2 and o[7]._initial_value == 3
    assert o[8].get(None) is None and o[8].name == 'a'
    assert o[9].get() == [1] and o[10].format == '<hq'
    assert dict(o[11]) == {1: o[-1]} and dict(o[12]) == {o[-1]: 2}
