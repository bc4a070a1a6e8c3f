import sys, pickle, io, ccloudpickle
for t in (type(sys.flags), type(sys.version_info),
          type(sys.float_info)):
    for kw in ({}, {'compat': 'cloudpickle'}):
        try:
            ccloudpickle.dumps(t, **kw)
        except pickle.PicklingError as e:
            assert 'not the same object as sys.' in str(e), e
        else:
            raise AssertionError('pickled %r' % t)
    try:
        ccloudpickle.Pickler(io.BytesIO()).dump([1, t])
    except pickle.PicklingError:
        pass
    else:
        raise AssertionError('Pickler pickled %r' % t)
import types, collections
for t in (int, type(None), types.FunctionType, types.CodeType,
          collections.OrderedDict, type(sys.stdout)):
    assert ccloudpickle.loads(ccloudpickle.dumps(t)) is t, t
