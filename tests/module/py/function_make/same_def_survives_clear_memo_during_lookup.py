import io
p = None
cleared = []
class Evil:
    def __hash__(self):
        return hash('Q')
    def __eq__(self, other):
        if not cleared and len(p.memo.copy()) > 1:
            cleared.append(len(p.memo.copy()))
            p.clear_memo()
        return False
g = {'__name__': 'm_evil', '__builtins__': __builtins__}
g[Evil()] = 1
exec('K = 1\ndef mk(a):\n    return lambda: (K, Q, a)\n', g)
fs = [g['mk'](0), g['mk'](1)]
for proto in (2, 3):
    cleared.clear()
    buf = io.BytesIO()
    p = cp.Pickler(buf, protocol=proto)
    p.dump(fs)
    assert cleared, 'the memo was never cleared'
    out = pickle.loads(buf.getvalue())
    assert [f.__code__.co_consts for f in out] == \
           [f.__code__.co_consts for f in fs]
    assert [f.__closure__[0].cell_contents for f in out] == [0, 1]
