import io
evil = b'\x80\x02' + call1(G('os', 'system'), touch) + b'.'
class NoSeek(io.BytesIO):
    def seek(self, *a):
        raise OSError('no seeking here')
class StrTell(io.BytesIO):
    def tell(self):
        return 'zero'
for cls, exc in ((NoSeek, OSError),
                 (StrTell, pickle.UnpicklingError)):
    f = cls(evil + b'next')
    try:
        cp.load(f, allow=['os.system'])
    except exc as e:
        pass
    else:
        raise AssertionError(cls)
    assert not exists(), cls.__name__ + ': loaded, then failed'
# nothing after the pickle: no seek needed, the load runs
cp.load(NoSeek(evil), allow=['os.system'])
assert exists()
os.unlink(marker)
# a plain file is left just after the pickle
f = io.BytesIO(b'xx' + evil + b'next')
f.seek(2)
cp.load(f, allow=['os.system'])
assert exists() and f.read() == b'next'
