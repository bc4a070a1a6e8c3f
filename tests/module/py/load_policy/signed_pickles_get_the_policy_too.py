import io
key = os.urandom(32)
for p in (2, 5):
    env = cp.dumps(Evil(), protocol=p, sign_key=key)
    refused(env, 'posix.system', verify_key=key, allow=[])
    refused(env, 'posix.system', verify_key=key, deny=['posix'])
    try:
        cp.load(io.BytesIO(env), verify_key=key, allow=[])
    except pickle.UnpicklingError as e:
        assert 'posix.system' in str(e), e
    else:
        raise AssertionError('load(verify_key, allow) ran it')
    assert not exists()
    f = cp.loads(cp.dumps(lambda x: x * 2, protocol=p,
                          sign_key=key), verify_key=key, allow=[])
    assert f(21) == 42
# The policy without the key: still refused as unverified.
refused(env, 'verify_key', allow=['posix'])
assert not exists()
