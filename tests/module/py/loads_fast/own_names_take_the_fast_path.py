for proto in (4, 5):
    data = cp.dumps((task, (1.5,), {}), protocol=proto)
    (f, a, k), seen, fast = found(data)
    assert f(*a, **k) == 6, f(*a, **k)
    assert seen == [('ccloudpickle', '_function_make')] and fast, (seen, fast)
# protocols 0 to 3 write GLOBAL 'ccloudpickle\\n...': ours,
# which raises the same audit event
for proto in (0, 1, 2, 3):
    data = cp.dumps(task, protocol=proto)
    f, seen, fast = found(data)
    assert f(1.5) == 6 and not fast, proto
    assert ('ccloudpickle', '_function_make') in seen, (proto, seen)
# the same pickle, loaded by plain pickle, is the same
data = cp.dumps(task)
assert pickle.loads(data)(2.5) == cp.loads(data)(2.5) == 8
