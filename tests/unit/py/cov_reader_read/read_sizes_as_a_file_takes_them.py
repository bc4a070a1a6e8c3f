import ccloudpickle as cp, gc, pickle
seen = {}
def hook():
    rs = [o for o in gc.get_objects()
          if type(o).__name__ == '_Reader']
    assert len(rs) == 1, rs
    r = rs[0]
    rest = bytes(r.peek())
    try:
        r.read('3')
    except TypeError:
        seen['str'] = True
    assert bytes(r.peek()) == rest
    assert bytes(r.read(2)) == rest[:2]
    assert bytes(r.read(None)) == rest[2:]
    assert bytes(r.read(-1)) == b''
    assert bytes(r.read()) == b''
    seen['rest'] = rest
    return 'hooked'
class R:
    def __reduce__(self):
        return (hook, ())
data = pickle.dumps([R(), b'tail' * 3], 4)
assert cp.loads(data, allow=['__main__.hook']) == \
    ['hooked', b'tail' * 3]
assert seen['str'] is True and data.endswith(seen['rest'])
assert len(seen['rest']) > 2
