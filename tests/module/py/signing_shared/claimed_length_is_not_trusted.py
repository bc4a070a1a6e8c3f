import ccloudpickle as cp, io
key = bytes(range(1, 33))
env = bytearray(cp.dumps(1, sign_key=key))
h = env[10] << 8 | env[11]
env[h - 8:h] = (1 << 62).to_bytes(8, 'big')
data = bytes(env) + b'x' * (3 << 20)
class F(io.BytesIO):
    sizes = []
    def read(self, n=-1):
        self.sizes.append(n)
        return super().read(n)
f = F(data)
try:
    cp.load(f, verify_key=key)
except cp.SignatureError as e:
    assert 'truncated' in str(e), str(e)
else:
    raise AssertionError('loaded')
assert all(0 < n <= 1 << 20 for n in F.sizes), F.sizes
assert f.tell() == len(data)
