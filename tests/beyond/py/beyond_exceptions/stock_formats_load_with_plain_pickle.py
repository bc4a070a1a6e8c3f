class AppError(Exception):
    pass
try:
    raise AppError('app') from exc
except AppError as e:
    app = e
for c in ('cloudpickle3', 'cloudpickle', 'cloudpickle2'):
    assert cp.dumps(exc, compat=c) == cp.dumps(exc)
    e = pickle.loads(cp.dumps(exc, compat=c))
    assert e.__cause__.args == ('k',)
data = cp.dumps(app, compat='cloudpickle2')
assert b'ccloudpickle' not in data
