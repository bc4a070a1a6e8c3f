import ccloudpickle as cp, pickle, io
f = cp.wrap(lambda: 1)
values = ['cloudpickle', 'cloudpickle2', 'cloudpickle3', '2.0',
          '2.0.0', '2.1', '2.1.0', '2.2', '2.2.0', '2.2.1', '3.0',
          '3.0.0', '3.1', '3.1.0', '3.1.1', '3.1.2']
for c in values:
    for obj in (f, [1, f], cp.wrap(3), cp.wrap(int)):
        try:
            cp.dumps(obj, compat=c)
        except pickle.PicklingError as e:
            assert 'ccloudpickle.wrap()' in str(e), str(e)
            assert 'cloudpickle ' in str(e), str(e)
            assert '__wrapped__' in str(e), str(e)
        else:
            raise AssertionError('compat=%s pickled a wrapper' % c)
    cp.loads(cp.dumps(f.__wrapped__, compat=c))
try:
    cp.Pickler(io.BytesIO(), compat='2.2').dump(f)
except pickle.PicklingError as e:
    assert 'cloudpickle 2.' in str(e), str(e)
else:
    raise AssertionError('Pickler(compat=) pickled a wrapper')
assert cp.loads(cp.dumps(f))() == 1
assert pickle.loads(pickle.dumps(f))() == 1
