def f(): return 1
cp.dumps(f); cp.dumps(1)
cp.Pickler.persistent_id = lambda self, obj: 'PID' if obj == 7 else None
try:
    for obj in (7, [7, 8], f, (f, 7)):
        assert cp.dumps(obj) == by_pickler(obj), obj
    assert b'PID' in cp.dumps(7) and b'PID' in cp.dumps((f, 7))
finally:
    del cp.Pickler.persistent_id
assert b'PID' not in cp.dumps(7)
assert cp.dumps((f, 7)) == by_pickler((f, 7))
