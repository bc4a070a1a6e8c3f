env = cp.dumps(EVIL, sign_key=KEY)
v = sys.version_info
magic = int.from_bytes(importlib.util.MAGIC_NUMBER[:2], 'little')
this = f'this is Python {v.major}.{v.minor} ({magic})'
e = reseal(env, KEY, minor=v.minor + 1)
refused(lambda: cp.loads(e, verify_key=KEY),
        f'signed by Python {v.major}.{v.minor + 1} '
        f'(bytecode magic {magic}); ' + this)
e = reseal(env, KEY, magic=magic + 1)
refused(lambda: cp.load(io.BytesIO(e), verify_key=KEY),
        f'signed by Python {v.major}.{v.minor} '
        f'(bytecode magic {magic + 1}); ' + this)
e = reseal(env, KEY, major=2)
refused(lambda: cp.loads(e, verify_key=KEY), 'signed by Python 2.')
assert not os.path.exists(MARKER)
# The version is checked after the MAC: a forged version
# without the key is just an altered file.
e = reseal(env, OTHER, minor=v.minor + 1)
refused(lambda: cp.loads(e, verify_key=KEY),
        'the signature does not match')
assert not os.path.exists(MARKER)
# Another micro version is the same CPython.
e = reseal(cp.dumps(7, sign_key=KEY), KEY, micro=(v.micro + 1) % 256)
assert cp.loads(e, verify_key=KEY) == 7
