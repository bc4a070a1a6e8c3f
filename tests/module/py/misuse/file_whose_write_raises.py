import ccloudpickle as cp
class Broken:
    calls = 0
    def write(self, data):
        Broken.calls += 1
        raise OSError(28, 'No space left on device')
p = cp.Pickler(Broken())
for obj in (1, lambda: 1, list(range(100000))):
    try:
        p.dump(obj)
        raise AssertionError('write error lost')
    except OSError as e:
        assert e.errno == 28
assert Broken.calls >= 3
try:
    cp.dump(lambda: 2, Broken())
    raise AssertionError('write error lost')
except OSError as e:
    assert e.errno == 28
