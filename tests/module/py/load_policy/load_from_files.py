import io
buf = io.BytesIO()
buf.write(b'prefix')
cp.dump(lambda: 1, buf)
cp.dump({'k': 2}, buf, protocol=2)
buf.write(evil[5])
buf.seek(6)
assert cp.load(buf, allow=[])() == 1
assert cp.load(buf, deny=['os'])['k'] == 2
pos = buf.tell()
try:
    cp.load(buf, allow=[])
except pickle.UnpicklingError as e:
    assert 'posix.system' in str(e)
else:
    raise AssertionError('not refused')
assert not exists()
# a file that cannot tell: fine with one pickle, refused before
# loading when something follows it
class Pipe:
    def __init__(self, data):
        self.f = io.BytesIO(data)
        self.read = self.f.read
        self.readline = self.f.readline
        self.readinto = self.f.readinto
    def tell(self):
        raise io.UnsupportedOperation('not seekable')
assert cp.load(Pipe(cp.dumps([3])), allow=[]) == [3]
try:
    cp.load(Pipe(evil_os + b'more'), allow=['os'])
except pickle.UnpicklingError as e:
    assert 'cannot seek back' in str(e), str(e)
else:
    raise AssertionError('not refused')
assert not exists()
# read() must give bytes
class Text:
    def read(self, *a):
        return 'text'
    readline = read
    def tell(self):
        return 0
try:
    cp.load(Text(), allow=[])
except TypeError as e:
    assert 'bytes-like' in str(e), str(e)
else:
    raise AssertionError('str accepted')
