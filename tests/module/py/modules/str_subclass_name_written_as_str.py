import ccloudpickle as cp, pickle, sys, types
class S(str):
    pass
m = types.ModuleType('x')
m.__name__ = S('cpk_subname')
exec('K = 5\ndef f():\n    return K\n', m.__dict__)
g = eval('lambda: mod.f()', {'mod': m})
for obj in (m, g):
    for compat in (None, 'cloudpickle'):
        data = cp.dumps(obj, compat=compat)
        # stock cloudpickle's names need it installed for pickle
        for load in (cp.loads, pickle.loads)[:2 - bool(compat)]:
            out = load(data)
            mod = out if obj is m else out.__globals__['mod']
            assert mod.__name__ == 'cpk_subname'
            assert mod.f() == 5
class H(str):
    def __hash__(self):
        return hash(str(self)) ^ 1
    __eq__ = str.__eq__
r = types.ModuleType('cpk_subname_reg')
exec('def f():\n    return 42\n', r.__dict__)
sys.modules['cpk_subname_reg'] = r
r.__name__ = H('cpk_subname_reg')
cp.register_pickle_by_value(r)
try:
    data = cp.dumps(r.f)
finally:
    cp.unregister_pickle_by_value(r)
    del sys.modules['cpk_subname_reg']
assert cp.loads(data)() == 42
