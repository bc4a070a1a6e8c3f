env = cp.dumps(EVIL, sign_key=KEY)
msgs = set()
for i in range(len(env)):
    # the lowest set bit too: lowering any length field gives
    # "trailing data" whatever the length (the temp path's)
    for mask in {0x01, 0x80, env[i] & -env[i]} - {0}:
        t = bytearray(env)
        t[i] ^= mask
        msgs.add(refused(lambda: cp.loads(bytes(t), verify_key=KEY)))
        refused(lambda: cp.load(io.BytesIO(t), verify_key=KEY))
        assert not os.path.exists(MARKER), (i, mask)
text = ' | '.join(sorted(msgs))
for frag in ('not a signed pickle', 'signed with another key',
             'the signature does not match', 'truncated',
             'trailing data', 'format version',
             'malformed signed-pickle header'):
    assert frag in text, (frag, text)
