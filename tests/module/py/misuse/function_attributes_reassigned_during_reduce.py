import ccloudpickle as cp
def f(a=1):
    'doc'
    return a
class Mod(str):
    def __eq__(self, other):
        f.__doc__ = 'other ' + 'doc'
        f.__defaults__ = (2,)
        f.__code__ = (lambda a=1: a * 10).__code__
        global decoys
        decoys = [str(i) * 3 for i in range(300)]
        return False
    __hash__ = str.__hash__
f.__module__ = Mod('elsewhere')
g = cp.loads(cp.dumps(f))
assert g.__doc__ in ('doc', 'other doc')
assert g() in (1, 2, 10, 20), g()
