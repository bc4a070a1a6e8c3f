import sys, types, ccloudpickle as cp
m = types.ModuleType('módulo_ü')
exec('Ω = 2\ndef größer(x):\n    return x * Ω\n', m.__dict__)
sys.modules['módulo_ü'] = m
cp.register_pickle_by_value(m)
data = cp.dumps(m.größer)
cp.unregister_pickle_by_value(m)
del sys.modules['módulo_ü']
