seen = {}
for n in range(1, cp.FORMAT + 1):
    data = cp.dumps(task, format=n)
    assert cp.loads(data)(2.5) == 5, n
    f = io.BytesIO()
    cp.Pickler(f, format=n).dump(task)
    assert f.getvalue() == data, n
    f = io.BytesIO()
    cp.dump(task, f, format=n)
    assert f.getvalue() == data, n
    seen[n] = data
assert seen[5] == seen[4]
# 4: modules as _function_make's fifth argument; 3: by
# subimport; 2: the code not inline; 1: no _function_make
assert b'subimport' not in seen[4] and b'subimport' in seen[3]
assert b'_code_unmarshal' not in seen[3]
assert b'_code_unmarshal' in seen[2]
assert b'_function_make' in seen[2]
assert b'_function_make' not in seen[1]
assert b'_function_fill' in seen[1]
# what format 1 cannot carry
lock = threading.Lock()
def uses():
    return lock
try:
    cp.dumps(uses, format=1)
except cp.PicklingError as e:
    assert str(e).startswith("Can't pickle for format 1 "
        '(ccloudpickle 0.1.0): its loaders have no _make_lock'), e
else:
    raise AssertionError('format 1 wrote a lock')
assert cp.loads(cp.dumps(uses, format=2))().acquire()
