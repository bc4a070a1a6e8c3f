import ccloudpickle as cp, sys, types
mod = types.ModuleType('made_up_module')
exec('K = 7\ndef f(x):\n    return x * K\n', mod.__dict__)
data = cp.dumps(mod.f)
assert cp.loads(data)(2) == 14
# Even when a module of that name is imported later.
sys.modules['made_up_module'] = types.ModuleType('made_up_module')
assert cp.loads(cp.dumps(mod.f))(3) == 21
del sys.modules['made_up_module']
