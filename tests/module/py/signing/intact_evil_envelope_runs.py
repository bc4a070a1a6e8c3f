env = cp.dumps(EVIL, sign_key=KEY)
cp.loads(env, verify_key=KEY)
assert os.path.exists(MARKER)
