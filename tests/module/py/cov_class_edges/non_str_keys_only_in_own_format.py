import ccloudpickle as cp, pickle
C = type('C', (), {1: 'one', 'a': 2})
try:
    cp.dumps(C, compat='cloudpickle')
except pickle.PicklingError as e:
    assert str(e).split('; when pickling ')[0] == ("Can't "
        "pickle %r: its namespace has keys "
        "that are not strings, which cloudpickle's format "
        "cannot carry" % (C,)), e
else:
    raise AssertionError('cloudpickle format took key 1')
