class Flip:
    n = 0
    def __bool__(self):
        Flip.n += 1
        return Flip.n > 1
d = b'\x80\x02' + call1(G('__builtin__', 'eval'),
    S('__import__("os").system("touch %s") or 5' % marker)) + b'.'
refused(d, 'builtins.eval', deny=['builtins'])
# False for the scan (unmapped __builtin__.set: a Python 2 name imported
# from sys.path, refused), True for a second look (builtins.set, denied)
d2 = b'\x80\x02' + G('__builtin__', 'set') + b')\x85R.'
try:
    r = cp.loads(d2, deny=['builtins.set'], fix_imports=Flip())
except (ImportError, cp.PolicyError) as e:
    r = e
assert Flip.n == 1 and isinstance(r, (ImportError, cp.PolicyError)), \
    (Flip.n, r)
Flip.n = 0
f = Flip()
try:
    r = cp.loads(d, deny=['builtins'], fix_imports=f)
except (pickle.UnpicklingError, ImportError) as e:
    r = e
assert not exists(), 'the scan and the load disagreed'
assert Flip.n == 1, Flip.n
assert isinstance(r, (pickle.UnpicklingError, ImportError)), r
# and the same through load(file)
import io
Flip.n = 0
try:
    r = cp.load(io.BytesIO(d), deny=['builtins'], fix_imports=f)
except (pickle.UnpicklingError, ImportError) as e:
    r = e
assert not exists() and Flip.n == 1, Flip.n
# an honest False: the names stay unmapped in both passes
try:
    cp.loads(d2, allow=['__builtin__'], fix_imports=False)
except ImportError:
    pass
else:
    raise AssertionError('__builtin__ imported')
assert cp.loads(d2, allow=[], fix_imports=True) == set()
