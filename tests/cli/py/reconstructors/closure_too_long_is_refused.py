f = cp._function_new(code1, {}, 3)
f()
