import ccloudpickle as cp, gc
real = gc.get_threshold
before = real()
class Switch:
    mode = 'real'
    def __call__(self):
        if self.mode == 'raise':
            raise RuntimeError('boom')
        return real()
gc.get_threshold = Switch()
class Flip:
    def __reduce__(self):
        return (exec, ("import gc; gc.get_threshold.mode = 'raise'",))
data = cp.dumps([Flip(), b'x' * 100000])
try:
    cp.loads(data)
    raise AssertionError('no RuntimeError')
except RuntimeError as e:
    assert str(e) == 'boom'
finally:
    gc.get_threshold = real
assert real() == before, (real(), before)
