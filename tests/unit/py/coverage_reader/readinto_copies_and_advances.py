import ccloudpickle as cp, gc, pickle
seen = {}
def hook():
    rs = [o for o in gc.get_objects()
          if type(o).__name__ == '_Reader']
    assert len(rs) == 1, rs
    r = rs[0]
    rest = bytes(r.peek())
    buf = bytearray(5)
    assert r.readinto(buf) == 5
    assert buf == rest[:5]
    assert bytes(r.peek()) == rest[5:]
    big = bytearray(len(rest) + 10)
    n = r.readinto(memoryview(big))
    assert n == len(rest) - 5, n
    assert big[:n] == rest[5:] and big[n:] == bytes(15)
    assert bytes(r.peek()) == b''
    assert r.readinto(bytearray(3)) == 0
    try:
        r.readinto(b'read-only')
    except BufferError:
        seen['ro'] = True
    try:
        r.readinto(memoryview(bytearray(8))[::2])
    except BufferError:
        seen['strided'] = True
    try:
        r.readinto(None)
    except TypeError:
        seen['none'] = True
    seen['rest'] = rest
    return 'hooked'
class R:
    def __reduce__(self):
        return (hook, ())
data = pickle.dumps([R(), b'tail' * 3], 4)
# the unpickler reads from what peek() gave it: the load ends
# as if readinto() had not run
assert cp.loads(data, allow=['__main__.hook']) == \
    ['hooked', b'tail' * 3]
assert seen == {'ro': True, 'strided': True, 'none': True,
                'rest': data}, seen
