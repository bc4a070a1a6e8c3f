import ccloudpickle as cp, os, pickle
r, w = os.pipe()
os.write(w, b'data')
f = open(r, 'r')
try:
    cp.dumps(f)
except pickle.PicklingError as e:
    assert str(e) == 'Cannot pickle file %d as it cannot be '\
        'read' % r, e
else:
    raise AssertionError('pickled a pipe')
# Nothing was consumed.
os.close(w)
assert f.read() == 'data'
f.close()
