data = cp.dumps(every())
for name in (b'_make_lock', b'_make_event', b'_make_condition',
             b'_make_semaphore', b'_make_contextvar',
             b'_make_struct', b'_make_weakdict'):
    assert name in data, name
check(cp.loads(data, allow=[]))
check(cp.loads(data))
