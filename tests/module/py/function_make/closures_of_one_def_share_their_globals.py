SCALE = 2.5
def make(a):
    return lambda x: math.floor((x + a) * SCALE)
fs = [make(i) for i in range(200)]
data = cp.dumps(fs)
ops = [op.name for op, a, _ in pickletools.genops(data)]
assert ops.count('BINFLOAT') == 1, ops.count('BINFLOAT')
assert sum(1 for op, a, _ in pickletools.genops(data)
           if a == 'SCALE') == 1
for load in (cp.loads, pickle.loads):
    gs = load(data)
    assert [g(1) for g in gs] == [f(1) for f in fs]
    assert len({id(g.__globals__) for g in gs}) == 1
m1 = types.ModuleType('m1')
m2 = types.ModuleType('m2')
src = 'K = {}\ndef f():\n    return K\n'
exec(src.format(1), m1.__dict__)
exec(src.format(2), m2.__dict__)
a, b = cp.loads(cp.dumps([m1.f, m2.f]))
assert (a(), b()) == (1, 2)
assert a.__globals__ is not b.__globals__
# the same values in two modules: one subset dict, two
# namespaces
exec(src.format(1), m2.__dict__)
m2.K = m1.K
a, b = cp.loads(cp.dumps([m1.f, m2.f]))
assert (a(), b()) == (1, 1)
assert a.__globals__ is not b.__globals__
assert a.__globals__['__name__'] == 'm1'
assert b.__globals__['__name__'] == 'm2'
