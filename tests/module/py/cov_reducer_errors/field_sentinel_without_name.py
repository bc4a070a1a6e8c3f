import ccloudpickle as cp, dataclasses, pickle
s = dataclasses._FIELD_BASE('odd')
del s.name
try:
    cp.dumps(s)
except AttributeError as e:
    assert 'name' in str(e), e
else:
    raise AssertionError('pickled a nameless sentinel')
try:
    cp.dumps(s, compat='cloudpickle')
except pickle.PicklingError as e:
    assert str(e).startswith("Can't pickle dataclasses."
                             '_FIELD_BASE(None) for '), e
else:
    raise AssertionError('pickled for cloudpickle')
