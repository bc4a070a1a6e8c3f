data = cp.dumps(R(cp._make_weakdict, (False,), iter([('a', 1)])))
cp.loads(data)
