import ccloudpickle as cp, mmap, os, time, signal
key = bytes(range(1, 33))
# big enough that a load spans scheduler slices, so both
# processes run at once on a busy machine
obj = b'A' * (1 << 24)
env = cp.dumps(obj, sign_key=key)
mm = mmap.mmap(-1, len(env))
mm[:] = env
i = env.rindex(b'A')
pid = os.fork()
if pid == 0:
    try:
        end = time.monotonic() + 60
        while time.monotonic() < end:
            for _ in range(1000):
                mm[i] = 66
                mm[i] = 65
    finally:
        os._exit(0)
loaded = refused = 0
t0 = time.monotonic()
try:
    while loaded + refused < 40 and (
            loaded + refused < 4 or time.monotonic() - t0 < 4):
        try:
            r = cp.loads(mm, verify_key=key)
        except cp.SignatureError:
            refused += 1
            continue
        assert r == obj, 'an altered pickle passed verification'
        loaded += 1
finally:
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
# the same envelope, unshared, loads
mm[i] = 65
assert cp.loads(mm, verify_key=key) == obj
assert cp.loads(bytearray(env), verify_key=key) == obj
assert cp.loads(memoryview(env), verify_key=key) == obj
