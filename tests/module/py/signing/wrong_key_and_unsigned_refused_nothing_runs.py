env = cp.dumps(EVIL, sign_key=KEY)
refused(lambda: cp.loads(env, verify_key=OTHER),
        'signed with another key')
refused(lambda: cp.load(io.BytesIO(env), verify_key=OTHER),
        'signed with another key')
raw = cp.dumps(EVIL)
refused(lambda: cp.loads(raw, verify_key=KEY),
        'not a signed pickle (verify_key was given)')
refused(lambda: cp.load(io.BytesIO(raw), verify_key=KEY),
        'not a signed pickle')
refused(lambda: cp._loads_exact(raw, verify_key=KEY),
        'not a signed pickle')
assert not os.path.exists(MARKER)
