import threading
class Counting:
    def __init__(self):
        self.writes = []
    def write(self, b):
        self.writes.append(bytes(b))
f = Counting()
cp.dump(lambda: 1, f, sign_key=KEY)
assert len(f.writes) == 1
assert cp.loads(f.writes[0], verify_key=KEY)() == 1
f = Counting()
try:
    cp.dump(threading.local(), f, sign_key=KEY)
    raise AssertionError('pickled a lock')
except TypeError:
    pass
assert f.writes == []
