env = cp.dumps(42, protocol=4, sign_key=KEY)
n = env[12]
assert env[13:13 + n] == cp.__version__.encode()
assert int.from_bytes(env[10:12], 'big') == 35 + n
v = sys.version_info
assert tuple(env[13 + n:16 + n]) == (v.major, v.minor, v.micro)
magic = int.from_bytes(importlib.util.MAGIC_NUMBER[:2], 'little')
assert int.from_bytes(env[16 + n:18 + n], 'big') == magic
kid = hmac.new(KEY, b'ccloudpickle key id', hashlib.sha256)
assert env[19 + n:27 + n] == kid.digest()[:8]
P = int.from_bytes(env[27 + n:35 + n], 'big')
assert P == len(env) - 35 - n - 32
assert pickle.loads(env[35 + n:35 + n + P]) == 42
mac = hmac.new(KEY, env[:-32], hashlib.sha256).digest()
assert env[-32:] == mac
