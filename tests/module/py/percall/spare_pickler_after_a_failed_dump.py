import threading
y = 3
def f(): return y
first = cp.dumps(f)
lock = threading.local()
for _ in range(3):
    try:
        cp.dumps([f, lock])
    except TypeError:
        pass
    else:
        raise AssertionError('a lock pickled')
    assert cp.dumps(f) == first
    assert cp.loads(cp.dumps(f))() == 3
