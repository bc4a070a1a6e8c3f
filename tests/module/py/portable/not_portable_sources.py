me = '%d.%d' % sys.version_info[:2]
def check(f, arg, want, why):
    data = cp.dumps(f, portable=True)
    s = sources(data)
    assert len(s) == 1 and s[0] != 'tuple', s
    assert f.__qualname__ in s[0] and why in s[0], s[0]
    assert cp.loads(data)(arg) == want
    try:
        other(data)
    except cp.UnpicklingError as e:
        msg = str(e)
    else:
        raise AssertionError('loaded')
    for word in ('3.0.0', me, f.__qualname__, why):
        assert word in msg, (word, msg)
m, path = module('def edited(x):\n    return x + 1\n',
                 'cpk_pt_edit')
rewrite(path, 'def edited(x):\n    return x * 5\n')
check(m.edited, 2, 3, 'does not compile to the running code')
m, path = module('def shifted(x):\n    return -x\n',
                 'cpk_pt_shift')
rewrite(path, '\ndef shifted(x):\n    return -x\n')
check(m.shifted, 2, -2, 'is not at')
ns = {'__name__': 'cpk_pt_exec'}
exec(compile('def run(x):\n    return x * 3\n', '<exec>',
             'exec'), ns)
check(ns['run'], 2, 6, 'no source file (<exec>)')
# A pseudo-file whose text is in linecache (IPython's cells):
# portable once proven; another text there is not.
cell = 'def cell(x):\n    return x * 7\n'
for text, ok in ((cell, True), (cell.replace('7', '8'), False)):
    ns = {'__name__': 'cpk_pt_cell'}
    exec(compile(cell, '<cell-1>', 'exec'), ns)
    linecache.cache['<cell-1>'] = (len(text), None,
                                  text.splitlines(True), '<cell-1>')
    data = cp.dumps(ns['cell'], portable=True)
    assert (sources(data) == ['tuple']) == ok, sources(data)
    if ok:
        assert other(data)(2) == 14
    del linecache.cache['<cell-1>']
m, path = module('def gone(x):\n    return x - 1\n',
                 'cpk_pt_gone')
os.remove(path)
linecache.checkcache(path)
check(m.gone, 2, 1, 'cannot be read')
