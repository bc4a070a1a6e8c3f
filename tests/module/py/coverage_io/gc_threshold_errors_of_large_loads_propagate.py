import ccloudpickle as cp, gc, io
real = gc.get_threshold
before = real()
class Switch:
    mode = 'bad'
    def __call__(self):
        if self.mode == 'bad':
            return 'bad'
        if self.mode == 'raise':
            raise RuntimeError('boom')
        return real()
sw = Switch()
gc.get_threshold = sw
try:
    big = cp.dumps(b'x' * 100000)
    small = cp.dumps([1, 2])
    for mode, exc, msg in (('bad', TypeError, 'is not a tuple'),
                           ('raise', RuntimeError, 'boom')):
        sw.mode = mode
        for data in (big, bytearray(big)):
            try:
                cp.loads(data)
            except exc as e:
                assert msg in str(e), e
            else:
                raise AssertionError(mode)
        assert cp.loads(small) == [1, 2]
        assert real() == before
    sw.mode = 'real'
    assert cp.loads(big) == b'x' * 100000
    assert cp.Unpickler(io.BytesIO(big)).load() == b'x' * 100000
    assert real() == before
finally:
    gc.get_threshold = real
