import ccloudpickle as cp, types
mod = types.ModuleType('dyn', 'doc of dyn')
exec('A = 2\ndef f(x):\n    return x * A\n', mod.__dict__)
before = dict(mod.__dict__)
data = cp.dumps(mod)
assert mod.__dict__ == before and '__builtins__' in mod.__dict__
m2 = cp.loads(data)
assert m2 is not mod and m2.__name__ == 'dyn'
assert m2.__doc__ == 'doc of dyn' and m2.A == 2 and m2.f(3) == 6
assert m2.__builtins__ is __import__('builtins').__dict__
