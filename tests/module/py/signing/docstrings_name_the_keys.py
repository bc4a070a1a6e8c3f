import ccloudpickle as cp, inspect
for f, k in ((cp.dumps, 'sign_key'), (cp.dump, 'sign_key'),
             (cp.loads, 'verify_key'), (cp.load, 'verify_key')):
    p = inspect.signature(f).parameters[k]
    assert p.default is None and p.kind == p.KEYWORD_ONLY, (f, p)
    assert k in f.__doc__, f
assert 'UnpicklingError' in cp.loads.__doc__
assert 'buffer_callback' in cp.dumps.__doc__
