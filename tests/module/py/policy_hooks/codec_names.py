data = (PROTO + g('_codecs', 'encode') + b'C\x01x' +
        s('bz2_codec') + b'\x86' + R + STOP)
sys.modules.pop('encodings.bz2_codec', None)
refused(data, 'bz2_codec')
assert 'encodings.bz2_codec' not in sys.modules
for proto in (0, 1, 2):
    d = pickle.dumps([b'ab\xff', b''], protocol=proto)
    for kw in POLICIES:
        assert cp.loads(d, **kw) == [b'ab\xff', b'']
