m, path = module('def f(x):\n    return x + 1\n', 'cpk_pt_bc')
DATA = cp.dumps(m.f, portable=True)
assert sources(DATA) == ['tuple'], sources(DATA)
rewrite(path, 'def f(x):\n    return x + 2\n')
assert cp.loads(DATA)(1) == 2
