alias = ccloudpickle.install_alias(compat='cloudpickle3')
import cloudpickle
assert cloudpickle.__ccloudpickle_compat__ == 'cloudpickle3'
assert cloudpickle.loads is ccloudpickle.loads
data = cloudpickle.dumps(obj)
assert b'ccloudpickle' not in data
f = io.BytesIO()
cloudpickle.dump(obj, f)
assert b'ccloudpickle' not in f.getvalue()
f = io.BytesIO()
cloudpickle.cloudpickle.Pickler(f).dump(obj)
assert b'ccloudpickle' not in f.getvalue()
assert issubclass(cloudpickle.Pickler, ccloudpickle.Pickler)
assert cloudpickle.CloudPickler is cloudpickle.Pickler
assert b'ccloudpickle' in cloudpickle.dumps(obj, compat=None)
try:
    ccloudpickle.install_alias(compat='cloudpickle9')
    raise AssertionError('accepted')
except ValueError as e:
    assert 'cloudpickle9' in str(e), e
assert cloudpickle.__ccloudpickle_compat__ == 'cloudpickle3'
assert b'ccloudpickle' not in cloudpickle.dumps(obj)
# Called again: the last compat= stands (None: ours).
assert ccloudpickle.install_alias() is alias
assert cloudpickle.dumps is ccloudpickle.dumps
assert cloudpickle.Pickler is ccloudpickle.Pickler
assert cloudpickle.__ccloudpickle_compat__ is None
