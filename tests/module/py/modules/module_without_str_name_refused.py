import ccloudpickle as cp, pickle, types
cases = []
m = types.ModuleType('cpk_nameless')
del m.__name__
cases.append((m, 'missing'))
m = types.ModuleType('cpk_nameless')
m.__name__ = 3
cases.append((m, 'not a str'))
m = types.ModuleType('cpk_nameless')
m.__name__ = b'bytes'
cases.append((m, 'not a str'))
# no namespace at all on 3.9 and 3.10, an empty one later
cases.append((types.ModuleType.__new__(types.ModuleType),
              'missing'))
for m, why in cases:
    f = eval('lambda: mod', {'mod': m})
    for obj in (m, f, [1, m]):
        for compat in (None, 'cloudpickle'):
            try:
                cp.dumps(obj, compat=compat)
            except pickle.PicklingError as e:
                want = 'cannot pickle module: its __name__ is ' + why
                assert str(e).startswith(want), str(e)
            else:
                raise AssertionError((m, obj, compat))
    path, culprit = cp._find_unpicklable(m)
    assert culprit is m, (path, culprit)
    # a name put back makes it a dynamic module again
    m.__name__ = 'cpk_nameless'
    assert cp.loads(cp.dumps(m)).__name__ == 'cpk_nameless'
