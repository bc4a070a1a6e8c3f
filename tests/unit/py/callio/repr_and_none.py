class R:
    def __repr__(self): return 'r\u00e9\ud800!'
class Bad:
    def __repr__(self): raise RuntimeError('no\nrepr')
got = enc_many('repr', [1, 'caf\u00e9', [1.5, None], {'a': b'x'}, R(), Bad()])
assert got[:5] == [b'1\n', "'caf\u00e9'\n".encode(),
    b'[1.5, None]\n', b"{'a': b'x'}\n", 'r\u00e9\\ud800!\n'.encode()], got
assert got[5] == "cannot encode a result of type 'Bad' with repr(): RuntimeError: no repr", got[5]
assert enc_many('none', [1, {1}, Bad()]) == [b'', b'', b'']
