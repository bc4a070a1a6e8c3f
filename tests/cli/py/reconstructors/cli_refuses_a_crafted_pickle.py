data = cp.dumps(R(cp._function_new, (code1, {}, None)))
