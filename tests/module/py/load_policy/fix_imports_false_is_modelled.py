import ccloudpickle as cp, pickle
data = b'\x80\x02c__builtin__\nset\n]\x85R.'
assert cp.loads(data, allow=[]) == set()
try:
    cp.loads(data, allow=[], fix_imports=False)
except pickle.UnpicklingError as e:
    assert 'refuses 1 import: __builtin__.set' in str(e), str(e)
else:
    raise AssertionError('not refused')
# denying the Python 3 name denies the Python 2 spelling
try:
    cp.loads(data, deny=['builtins.set'])
except pickle.UnpicklingError as e:
    assert 'builtins.set (byte 2)' in str(e), str(e)
else:
    raise AssertionError('not refused')
