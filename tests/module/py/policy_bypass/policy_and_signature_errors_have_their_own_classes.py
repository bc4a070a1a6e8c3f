assert issubclass(cp.PolicyError, pickle.UnpicklingError)
assert issubclass(cp.SignatureError, pickle.UnpicklingError)
assert cp.PolicyError.__module__ == 'ccloudpickle'
assert cp.PolicyError.__doc__ and cp.SignatureError.__doc__
evil = b'\x80\x02' + call1(G('os', 'system'), touch) + b'.'
refused(evil, 'os.system', allow=[])
# a malformed pickle is no policy matter
try:
    cp.loads(b'\x80\x02(', allow=[])
except pickle.UnpicklingError as e:
    assert not isinstance(e, (cp.PolicyError, cp.SignatureError))
else:
    raise AssertionError('truncated pickle loaded')
# signature refusals
key = bytes(range(32))
env = cp.dumps(1, sign_key=key)
for f in (lambda: cp.loads(env[:-1], verify_key=key),
          lambda: cp.loads(b'\x80\x04K\x01.', verify_key=key),
          lambda: cp.loads(env, verify_key=bytes(32)),
          lambda: cp.loads(env),
          lambda: cp.load(__import__('io').BytesIO(env)),
          lambda: cp.load(__import__('io').BytesIO(b''),
                          verify_key=key)):
    try:
        f()
    except cp.SignatureError:
        pass
    else:
        raise AssertionError('not refused')
assert cp.loads(env, verify_key=key) == 1
