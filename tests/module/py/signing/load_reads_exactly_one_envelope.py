b = io.BytesIO()
cp.dump([1, 2], b, sign_key=KEY)
cp.dump(lambda: 3, b, protocol=2, sign_key=KEY)
b.write(b'tail')
b.seek(0)
assert cp.load(b, verify_key=KEY) == [1, 2]
assert cp.load(b, verify_key=KEY)() == 3
assert b.read() == b'tail'
class Trickle:
    def __init__(self, data):
        self.b = io.BytesIO(data)
        self.sizes = []
    def read(self, n):
        self.sizes.append(n)
        return self.b.read(min(n, 3))
env = cp.dumps({'k': 'v' * 100}, sign_key=KEY)
t = Trickle(env + b'more')
assert cp.load(t, verify_key=KEY) == {'k': 'v' * 100}
assert t.b.read() == b'more'
# Never asked for more than the header says remains.
assert sum(min(n, 3) for n in t.sizes) == len(env), t.sizes
# A header claiming a huge pickle: refused as truncated, with
# reads bounded by what the file holds.
n = env[12]
big = env[:27 + n] + (2**62).to_bytes(8, 'big') + env[35 + n:]
refused(lambda: cp.load(io.BytesIO(big), verify_key=KEY),
        'truncated')
refused(lambda: cp.load(io.BytesIO(b''), verify_key=KEY),
        'empty input')
class Liar:
    def read(self, n):
        return b'x' * (n + 1)
try:
    cp.load(Liar(), verify_key=KEY)
    raise AssertionError('accepted')
except ValueError as e:
    assert 'more than' in str(e), e
