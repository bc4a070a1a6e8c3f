# Module-level locks, events, conditions and semaphores used by shipped
# functions: rebuilt new and unlocked where loaded (who holds a lock is a
# fact about this process); functions sharing one share the new one.
import threading

LOCK = threading.Lock()
RLOCK = threading.RLock()
PYRLOCK = threading._PyRLock()
READY = threading.Event()
COND = threading.Condition(RLOCK)     # over the RLock the functions use
SEM = threading.Semaphore(3)
BSEM = threading.BoundedSemaphore(2)
counter = [0]


def bump():
    with LOCK:
        counter[0] += 1
        return counter[0]


def locked():
    return LOCK.locked()


def reenter():
    with RLOCK:
        with RLOCK:
            with PYRLOCK:
                with PYRLOCK:
                    return True


def wait_ready(timeout):
    with COND:
        return COND.wait_for(lambda: READY.is_set(), timeout)


def announce():
    with COND:
        READY.set()
        COND.notify_all()


def take():
    return SEM.acquire(blocking=False)


def btake():
    return BSEM.acquire(blocking=False)


def brelease():
    BSEM.release()


def make():
    # State at dump time: the lock held, the event set, one of the three
    # semaphore slots taken, the bounded semaphore drained.
    LOCK.acquire()
    READY.set()
    SEM.acquire()
    BSEM.acquire()
    BSEM.acquire()
    return (bump, locked, reenter, wait_ready, announce, take, btake,
            brelease, (LOCK, RLOCK, PYRLOCK, READY, COND))
# --- load ---
import _thread
import threading
(bump, locked, reenter, wait_ready, announce, take, btake, brelease,
 (lock, rlock, pyrlock, ready, cond)) = obj
# New and unlocked, of the same exact kinds; shared by the functions.
assert type(lock) is _thread.LockType, type(lock)
assert type(rlock) is _thread.RLock, type(rlock)
assert type(pyrlock) is threading._PyRLock, type(pyrlock)
assert bump.__globals__["LOCK"] is lock is locked.__globals__["LOCK"]
assert not locked()
assert bump() == 1 and bump() == 2 and not locked()
assert lock.acquire(blocking=False) and locked()
lock.release()
assert reenter()
# The condition wraps the same RLock the functions use.
assert type(cond) is threading.Condition and cond._lock is rlock
# Event: new and clear (whether it was set is the dumping process's news).
assert type(ready) is threading.Event and not ready.is_set()
# Condition wait/notify across threads.
results = []
t = threading.Thread(target=lambda: results.append(wait_ready(10)))
t.start()
announce()
t.join(10)
assert results == [True], results
# Semaphore: the count it had at dump time (2 of 3 left).
assert take() and take() and not take()
# BoundedSemaphore: its bound, all available, still bounded.
assert btake() and btake() and not btake()
brelease()
brelease()
try:
    brelease()
except ValueError:
    pass
else:
    raise AssertionError("BoundedSemaphore lost its bound")
