env = cp.dumps(EVIL, sign_key=KEY)
refused(lambda: cp.loads(env), 'signed pickle: pass verify_key')
refused(lambda: cp._loads_exact(env), 'pass verify_key')
refused(lambda: cp.loads(bytearray(env)), 'pass verify_key')
refused(lambda: cp.load(io.BytesIO(env)),
        "invalid load key, '\\xcf': a signed pickle")
# Stock pickle refuses it at its first byte too.
try:
    pickle.loads(env)
    raise AssertionError('pickle.loads accepted it')
except pickle.UnpicklingError as e:
    assert 'invalid load key' in str(e), e
assert not os.path.exists(MARKER)
