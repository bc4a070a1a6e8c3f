def seal(p, key):
    v = sys.version_info
    magic = importlib.util.MAGIC_NUMBER[:2][::-1]
    kid = hmac.new(key, b'ccloudpickle key id', hashlib.sha256)
    tool = b'9.9-test'
    head = (b'\xcfCPKSIG\n' + b'\0\1' +
            (35 + len(tool)).to_bytes(2, 'big') + bytes([len(tool)])
            + tool + bytes([v.major, v.minor, v.micro]) + magic +
            b'\2' + kid.digest()[:8] + len(p).to_bytes(8, 'big'))
    body = head + p
    return body + hmac.new(key, body, hashlib.sha256).digest()
env = seal(b'\x80\x02U\x01\xe9.', KEY)
assert cp.loads(env, verify_key=KEY, encoding='latin1') == '\xe9'
assert cp.loads(data=env, verify_key=KEY, encoding='bytes') == b'\xe9'
assert cp.load(file=io.BytesIO(env), encoding='latin1',
               verify_key=KEY) == '\xe9'
assert cp.load(io.BytesIO(env), verify_key=KEY,
               encoding='bytes') == b'\xe9'
assert cp._loads_exact(env, encoding='bytes', verify_key=KEY) == b'\xe9'
# _loads_exact applies to the pickle inside: trailing bytes
# within P are refused (the MAC is fine).
env2 = seal(b'K\x07.junk', KEY)
assert cp.loads(env2, verify_key=KEY) == 7
refused(lambda: cp._loads_exact(env2, verify_key=KEY),
        '4 bytes of trailing data after the pickle')
