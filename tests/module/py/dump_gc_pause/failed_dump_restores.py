import threading
for make in (cp.dumps, lambda o: cp.Pickler(io.BytesIO()).dump(o)):
    try:
        make([Seen() for _ in range(600)] + [threading.local()])
    except TypeError:
        pass
    else:
        raise AssertionError('a lock pickled')
    assert seen.count(0) >= 300, seen.count(0)
    assert gc.get_threshold() == before, gc.get_threshold()
    seen.clear()
