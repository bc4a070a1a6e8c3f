import ccloudpickle as cp
class Lazy(cp.Pickler):
    def __init__(self, file):
        pass
p = Lazy(None)
assert p.globals_ref == {}
r = p.reducer_override(lambda: 1)
assert isinstance(r, tuple)
assert p.reducer_override(1) is NotImplemented
