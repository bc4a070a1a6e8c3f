import random
rnd = random.Random(1234)
def s():
    return ''.join(chr(rnd.choice([rnd.randrange(0, 0x80),
        rnd.randrange(0x80, 0x800), rnd.randrange(0x800, 0xd800),
        rnd.randrange(0xe000, 0x110000)])) for _ in
        range(rnd.randrange(8)))
def v(d):
    k = rnd.randrange(9 if d < 4 else 6)
    if k == 0: return None
    if k == 1: return rnd.random() < 0.5
    if k == 2: return rnd.randrange(-2**70, 2**70) >> rnd.randrange(70)
    if k == 3: return rnd.uniform(-1e6, 1e6) * 10 ** rnd.randrange(-300, 300)
    if k == 4: return s()
    if k == 5: return rnd.choice([math.nan, math.inf, -math.inf,
        struct.unpack('d', rnd.randbytes(8))[0]])
    if k == 6: return [v(d + 1) for _ in range(rnd.randrange(4))]
    if k == 7: return tuple(v(d + 1) for _ in range(rnd.randrange(4)))
    return {s(): v(d + 1) for _ in range(rnd.randrange(4))}
import struct
cases = [v(0) for _ in range(3000)]
got = enc_many('json', cases)
n = 0
for c, g in zip(cases, got):
    try:
        want = dumps(c)
    except ValueError:
        assert isinstance(g, str) and 'JSON compliant' in g, (c, g)
        n += 1
        continue
    assert g == want, (c, g, want)
    assert json.loads(g) == json.loads(want)
assert 0 < n < 3000
