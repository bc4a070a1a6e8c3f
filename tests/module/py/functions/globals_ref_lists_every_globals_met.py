import ccloudpickle as cp, io, types
m1 = types.ModuleType('m1')
m2 = types.ModuleType('m2')
exec('def f():\n    return 1\n', m1.__dict__)
exec('def g():\n    return 2\n', m2.__dict__)
m1.f.__module__ = m2.g.__module__ = '__main__'
def names(ref):
    return sorted((k, v['__name__']) for k, v in ref.items())
p = cp.Pickler(io.BytesIO())
p.dump(m1.f)
p.dump(m2.g)
assert names(p.globals_ref) == sorted([
    (id(m1.__dict__), 'm1'), (id(m2.__dict__), 'm2')])
q = cp.Pickler(io.BytesIO())
q.dump(m1.f)
ref = q.globals_ref
assert names(ref) == [(id(m1.__dict__), 'm1')], ref
base = ref[id(m1.__dict__)]
q.dump(m2.g)
q.dump(m1.f)
assert len(ref) == 2 and ref[id(m1.__dict__)] is base
buf = io.BytesIO()
r = cp.Pickler(buf)
r.dump(m1.f)
r.dump(m2.g)
r.dump(m1.f)
buf.seek(0)
u = cp.Unpickler(buf)
f1, g, f2 = u.load(), u.load(), u.load()
assert f1.__globals__ is f2.__globals__
assert g.__globals__ is not f1.__globals__
assert (f1(), g(), f2()) == (1, 2, 1)
