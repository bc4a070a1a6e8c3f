import io, pickle, sys, ccloudpickle as cp
sys.path.insert(0, CPK_SOURCE_DIR + '/tests/portable')
import fixture_mod
cp.register_pickle_by_value(fixture_mod)
try:
    data = cp.dumps(fixture_mod.top, portable=True)
finally:
    cp.unregister_pickle_by_value(fixture_mod)
assert cp.loads(data, allow=[])(1) == fixture_mod.top(1)
seen = []
class U(cp.Unpickler):
    def find_class(self, m, n):
        f = super().find_class(m, n)
        if n != '_code_portable':
            return f
        return lambda *a: seen.append(a) or f(*a)
U(io.BytesIO(data)).load()
ver, magic, code, src = seen[0]
assert isinstance(src, tuple)
marker = object()
class P(pickle.Pickler):
    def reducer_override(self, o):
        if o is marker:
            return (cp._code_portable, ('3.99', 9999, code, src))
        return NotImplemented
b = io.BytesIO()
P(b, 5).dump(marker)
assert type(cp.loads(b.getvalue())).__name__ == 'code'
try:
    cp.loads(b.getvalue(), allow=[])
except cp.PolicyError as e:
    assert 'compiles source text shipped' in str(e), e
else:
    raise AssertionError('policy let a compile through')
