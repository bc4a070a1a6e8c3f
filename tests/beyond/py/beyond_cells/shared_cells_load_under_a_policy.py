i, g = cp.loads(cp.dumps(pair()), allow=[])
i()
assert g() == 1
m = types.ModuleType('rt_mod')
exec('R = 2\ndef f(x):\n    return x * R\n', m.__dict__)
m2 = cp.loads(cp.dumps(m), allow=[])
m2.R = 3
assert m2.f(2) == 6 and m2.f.__globals__ is vars(m2)
