def mk(n):
    ns = {}
    exec('def make(a):\n'
         '    def f():\n'
         '        return a, len(' + repr('x' * n) + ')\n'
         '    return f\n', ns)
    return ns['make']
for n, inline in ((10, True), (100_000, False)):
    make = mk(n)
    fs = [make(i) for i in range(3)]
    assert ('_code_unmarshal' not in names(cp.dumps(fs))) == inline
    data = cp.dumps(fs + [fs[0].__code__])
    assert form(fs[0]) == 'make'
    for load in (cp.loads, pickle.loads):
        out = load(data)
        assert [g() for g in out[:3]] == [(i, n) for i in range(3)]
        assert out[0].__code__ is out[1].__code__ is out[2].__code__
        assert out[0].__code__ is out[3]
    assert cp.dumps(fs) == cp.dumps(fs)
