import ccloudpickle as cp, copyreg, io, pickle, threading
class P(cp.Pickler):
    dispatch_table = {complex: lambda c: (complex, (1, 2))}
def mine(f):
    p = cp.Pickler(f, format=1)
    p.dispatch_table = copyreg.dispatch_table.copy()
    return p
for make in (lambda f: P(f, format=1), mine):
    f = io.BytesIO()
    try:
        make(f).dump([1, threading.Lock()])
    except pickle.PicklingError as e:
        assert str(e) == ("Can't pickle for format 1 "
            '(ccloudpickle 0.1.0): its loaders have no '
            '_make_lock; write a newer format'), e
    else:
        raise AssertionError(f.getvalue())
    f = io.BytesIO()
    make(f).dump(3j)
f = io.BytesIO()
p = P(f, format=2)
p.dump(threading.Lock())
assert b'_make_lock' in f.getvalue()
