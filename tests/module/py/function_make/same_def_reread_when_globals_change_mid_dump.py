import io
class Rec(pickle.Unpickler):
    def find_class(self, m, n):
        if n == '_function_make':
            return lambda *a: ('made', a)
        return super().find_class(m, n)
def made(data):
    return [o[1] for o in Rec(io.BytesIO(data)).load()
            if isinstance(o, tuple) and o[0] == 'made']
m = types.ModuleType('m_mid')
exec('K = [1]\nR = 0.5\ndef mk(a):\n'
     '    return lambda: (K, R, a)\n', m.__dict__)
class Rebind:
    def __reduce__(self):
        m.K = [2]
        return (int, (0,))
fs = [m.mk(0), m.mk(1), Rebind(), m.mk(2), m.mk(3)]
args = made(cp.dumps(fs))
assert len(args) == 4, args
subsets = [a[3]['__globals__'] for a in args]
assert [s['K'] for s in subsets] == [[1], [1], [2], [2]]
assert subsets[0] is subsets[1] and subsets[2] is subsets[3]
assert subsets[1] is not subsets[2]
# a name the code reads, gone between two closures
class Unbind:
    def __reduce__(self):
        del m.R
        return (int, (0,))
args = made(cp.dumps([m.mk(0), Unbind(), m.mk(1)]))
assert [sorted(a[3]['__globals__']) for a in args] == \
       [['K', 'R'], ['K']], args
# a module among the globals, registered by value between
cfg = types.ModuleType('cfg_mid')
sys.modules['cfg_mid'] = cfg
cfg.RATE = 5
m.cfg = cfg
exec('def mk2(a):\n    return lambda: (cfg.RATE, a)\n',
     m.__dict__)
class Reg:
    def __reduce__(self):
        cp.register_pickle_by_value(cfg)
        return (int, (0,))
try:
    data = cp.dumps([m.mk2(0), m.mk2(1), Reg(), m.mk2(2)])
finally:
    cp.unregister_pickle_by_value(cfg)
assert len(made(data)) == 2, made(data)
out = cp.loads(data)
assert out[3]() == (5, 2) and out[0]() == (5, 0)
assert out[3].__globals__['cfg'] is not cfg
