y = 10
f = lambda x: x + y
for proto in range(6):
    env = cp.dumps(f, protocol=proto, sign_key=KEY)
    assert env[:8] == b'\xcfCPKSIG\n'
    n = env[12]
    assert env[18 + n] == proto, (proto, env[18 + n])
    assert cp.loads(env, verify_key=KEY)(1) == 11
env = cp.dumps([1, 'a', {2: 3}], sign_key=KEY)
assert env[18 + env[12]] == 5
assert cp.loads(env, verify_key=KEY) == [1, 'a', {2: 3}]
env = cp.dumps(f, protocol=-1, sign_key=KEY)
assert env[18 + env[12]] == 5
# bytearray, memoryview, longer keys and data.
k64 = bytearray(os.urandom(64))
env = cp.dumps(f, sign_key=memoryview(k64))
assert cp.loads(bytearray(env), verify_key=k64)(2) == 12
assert cp.loads(memoryview(env), verify_key=bytes(k64))(2) == 12
# compat pickles are signed too.
env = cp.dumps(f, compat='cloudpickle', sign_key=KEY)
assert cp.loads(env, verify_key=KEY)(3) == 13
assert cp._loads_exact(env, verify_key=KEY)(3) == 13
