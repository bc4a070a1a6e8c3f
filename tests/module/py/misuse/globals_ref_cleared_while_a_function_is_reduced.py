import ccloudpickle as cp, importlib, io, sys, types
class Pkg(types.ModuleType):
    def __reduce__(self):
        return (importlib.import_module, (self.__name__,))
    @property
    def __package__(self):
        p.globals_ref.clear()
        global decoys
        decoys = [{'decoy': i} for i in range(200)]
        return ''
mod = Pkg('cpk_misuse_pkg')
sys.modules['cpk_misuse_pkg'] = mod
def f():
    return mod
for proto, compat in ((2, None), (5, None), (5, 'cloudpickle')):
    buf = io.BytesIO()
    p = cp.Pickler(buf, proto, compat=compat)
    p.dump(f)
    g = cp.loads(buf.getvalue())
    assert g() is mod
    assert 'decoy' not in g.__globals__, g.__globals__
