import dataclasses, io, pickle, ccloudpickle
targets = [('cloudpickle', '3.0-3.1'), ('cloudpickle3', '3.0-3.1'),
           ('3.1.2', '3.0-3.1'), ('2.2', '2.1-2.2'),
           ('2.1.0', '2.1-2.2'), ('cloudpickle2', '2.0-2.2'),
           ('2.0', '2.0-2.2')]
for name in ('custom', '_FIELD'):
    odd = dataclasses._FIELD_BASE(name)
    for value, releases in targets:
        for dump in (lambda: ccloudpickle.dumps([1, odd], compat=value),
                     lambda: ccloudpickle.Pickler(io.BytesIO(),
                                 compat=value).dump({'f': odd})):
            try:
                dump()
            except pickle.PicklingError as e:
                # Before 3.11 the path to the culprit follows (test_culprit.c).
                msg = str(e).split('; when pickling ')[0]
            else:
                raise AssertionError((name, value))
            assert msg == (f"Can't pickle dataclasses._FIELD_BASE("
                           f"{name!r}) for cloudpickle "
                           f"{releases}: it is not one of dataclasses' "
                           "field sentinels (_FIELD, _FIELD_CLASSVAR, "
                           "_FIELD_INITVAR), the only ones that loader "
                           "rebuilds"), msg
# Found where a compat dump fails, not where ours would.
odd = dataclasses._FIELD_BASE('custom')
path, culprit = ccloudpickle._find_unpicklable({'k': [odd]}, 5, '2.2')
assert path == "['k'][0]" and culprit is odd, path
assert ccloudpickle._find_unpicklable({'k': [odd]}, 5) is None
try:
    ccloudpickle._find_unpicklable(odd, 5, '2.3')
    raise AssertionError('2.3 taken')
except ValueError as e:
    assert str(e).startswith('compat must be None or'), e
# The real ones go, in every format.
for value, _ in targets + [(None, None)]:
    for s in (dataclasses._FIELD, dataclasses._FIELD_CLASSVAR,
              dataclasses._FIELD_INITVAR):
        assert ccloudpickle.loads(ccloudpickle.dumps(s, compat=value)) is s
