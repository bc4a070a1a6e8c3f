import sys, ccloudpickle as cp
env = sys.stdin.buffer.read()
assert cp.loads(env, verify_key=bytes(range(1, 33)))['a']() == 5
try:
    cp.loads(env, verify_key=bytes(range(2, 34)))
    sys.exit('accepted with another key')
except cp.UnpicklingError:
    pass
