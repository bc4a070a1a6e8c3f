import ccloudpickle as cp, io
buf = io.BytesIO()
cp.dump(lambda x: x * 3, buf)
cp.dump({'k': [1]}, buf, protocol=2)
buf.seek(0)
f = cp.load(buf)
assert f(2) == 6
assert cp.load(buf) == {'k': [1]}
try:
    cp.load(buf)
    raise AssertionError('no EOFError')
except EOFError:
    pass
