import ccloudpickle as cp, pickle, threading
cases = [(threading.Semaphore, '_value', -1),
         (threading.Semaphore, '_value', 'x'),
         (threading.BoundedSemaphore, '_initial_value', 2.5),
         (threading.BoundedSemaphore, '_initial_value', True)]
for kind, attr, bad in cases:
    s = kind(2)
    setattr(s, attr, bad)
    for kw in ({}, {'compat': 'cloudpickle'}):
        try:
            cp.dumps(s, **kw)
        except pickle.PicklingError as e:
            want = "Can't pickle %s: its %s is %r, not an int "\
                '>= 0' % (kind.__name__, attr, bad)
            assert str(e) == want, (str(e), want)
        else:
            raise AssertionError((kind, bad, kw))
ok = threading.BoundedSemaphore(3)
back = cp.loads(cp.dumps(ok))
assert type(back) is threading.BoundedSemaphore
assert back._initial_value == 3
