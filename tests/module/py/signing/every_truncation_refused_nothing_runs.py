env = cp.dumps(EVIL, sign_key=KEY)
for n in range(len(env)):
    refused(lambda: cp.loads(env[:n], verify_key=KEY))
    refused(lambda: cp.load(io.BytesIO(env[:n]), verify_key=KEY))
assert not os.path.exists(MARKER)
refused(lambda: cp.loads(env + b'\0', verify_key=KEY),
        'trailing data after the signature')
assert not os.path.exists(MARKER)
