import cloudpickle
b = cp.dumps(pair(), compat='cloudpickle2')
assert b'__closure_cells__' not in b
i, g = cloudpickle.loads(b)
m = types.ModuleType('rt_mod2')
exec('R = 2\ndef f(x):\n    return x * R\n', m.__dict__)
b = cp.dumps(m, compat='cloudpickle2')
assert b'_module_new' not in b and b'dynamic_subimport' in b
assert cloudpickle.loads(b).f(2) == 4
