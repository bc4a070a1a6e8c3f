import ccloudpickle as cp, fnmatch
w = fnmatch._compile_pattern
data = cp.dumps(w)
assert b'_lru_cache_new' not in data, data
assert b'_compile_pattern' in data
assert cp.loads(data) is w
# and through our table in a plain Pickler
import io, pickle
f = io.BytesIO()
p = pickle.Pickler(f)
p.dispatch_table = cp.Pickler.dispatch_table
p.dump(w)
assert pickle.loads(f.getvalue()) is w
