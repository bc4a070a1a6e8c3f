import ccloudpickle as cp
COUNTER = 0
def bump():
    global COUNTER
    COUNTER += 1
def read():
    return COUNTER
for proto in (2, 5):
    b, r = cp.loads(cp.dumps([bump, read], protocol=proto))
    assert b.__globals__ is r.__globals__
    b(); b()
    assert r() == 2 and COUNTER == 0
# Separate dumps: separate globals, as with cloudpickle.
b2 = cp.loads(cp.dumps(bump))
r2 = cp.loads(cp.dumps(read))
assert b2.__globals__ is not r2.__globals__
