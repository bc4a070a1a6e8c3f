data = cp.dumps(R(cp._make_weakdict, (True,), iter([([], 1)])))
cp.loads(data)
