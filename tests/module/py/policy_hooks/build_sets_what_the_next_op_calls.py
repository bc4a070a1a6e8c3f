NS = g('types', 'SimpleNamespace') + b')' + R
def attr(name): return b'}' + s(name) + FN + b's' + B
refused(PROTO + NS + attr('__setstate__') + i(0) + B + STOP,
        'BUILD __setstate__')
refused(PROTO + NS + attr('extend') + b'(' + i(1) + b'e' + STOP,
        'APPENDS extend')
one = PROTO + NS + attr('callback') + STOP
for kw in POLICIES:
    o = cp.loads(one, **kw)
    assert callable(o.callback)
assert not os.path.exists(marker)
