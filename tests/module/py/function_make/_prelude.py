# form(obj): 'make' or 'split' from the names the pickle holds; check(f):
# the dump loads with plain pickle and with ours into a working copy.
import ccloudpickle as cp, pickle, pickletools, sys, types, math
def names(data):
    return {a for op, a, _ in pickletools.genops(data)
            if op.name == 'SHORT_BINUNICODE'}
def form(obj):
    n = names(cp.dumps(obj))
    make = '_function_make' in n
    split = '_function_new' in n and '_function_fill' in n
    assert make != split or not (make or split), n
    return 'make' if make else 'split' if split else 'bare'
def check(f, *args):
    data = cp.dumps(f)
    for load in (cp.loads, pickle.loads):
        g = load(data)
        assert g is not f and g(*args) == f(*args), (g(*args),)
        assert g.__name__ == f.__name__
        assert g.__qualname__ == f.__qualname__
        assert g.__defaults__ == f.__defaults__
        assert g.__kwdefaults__ == f.__kwdefaults__
