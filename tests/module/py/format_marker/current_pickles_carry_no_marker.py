assert cp.FORMAT == 5, cp.FORMAT
for proto in range(6):
    data = cp.dumps(task, protocol=proto)
    assert b'_format_' not in data, (proto, data[:40])
    assert data == cp.dumps(task, protocol=proto, format=4)
    assert cp.loads(data)(2.5) == 5
    f = io.BytesIO()
    cp.Pickler(f, protocol=proto).dump(task)
    assert f.getvalue() == data, proto
    # a marker of this format or an older one is a no-op
    for name in (MK, b'_format_1_0_1_0'):
        m = marked(data, name)
        assert cp.loads(m)(2.5) == 5, (proto, name)
        assert pickle.loads(m)(2.5) == 5, (proto, name)
f = io.BytesIO()
cp.Pickler(f).dump([b'x' * 300000, task])
assert b'_format_' not in f.getvalue()
assert cp.loads(f.getvalue())[1](1) == 4
