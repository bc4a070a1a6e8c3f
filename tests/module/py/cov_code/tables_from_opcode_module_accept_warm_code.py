import ccloudpickle, pickle, types
class P:
    def __init__(self):
        self.x = 3
K = 5
def warm(n):
    p = P()
    t = 0
    for i in range(n):
        t += p.x * K + len((i,)) + [i][0]
    return t
for _ in range(200):
    warm(20)
# The first pickle builds the tables from opcode: specialised
# instructions must map to their base (with its caches), or a
# warm function reads as ending inside its caches.
data = ccloudpickle.dumps(warm)
ext._RAW_MAGIC_NUMBER = real
data = ccloudpickle.dumps(warm)
assert ccloudpickle.loads(data)(20) == warm(20)
# The same tables still find code whose last instruction lost
# its cache (BINARY_OP then its CACHE unit, moved last).
def f(a, b):
    return a + b
good = f.__code__.co_code
assert len(good) == 12 and good[6] == 122, good
bad = good[:6] + good[10:12] + bytes([9, 0]) + good[6:8]
badfn = types.FunctionType(f.__code__.replace(co_code=bad), {})
try:
    ccloudpickle.dumps(badfn)
except pickle.PicklingError as e:
    assert "code 'f'" in str(e) and 'inline caches' in str(e), e
else:
    raise AssertionError('pickled code ending in its caches')
assert ccloudpickle.loads(ccloudpickle.dumps(f))(2, 3) == 5
