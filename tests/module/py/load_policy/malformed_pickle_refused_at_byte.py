import ccloudpickle as cp, pickle, os, tempfile
assert cp.loads(b'K\x05.junk', allow=[]) == 5
marker = os.path.join(tempfile.mkdtemp(), 'm')
evil = (b'cposix\nsystem\n(S\'touch ' + marker.encode() +
        b'\'\ntR.x')
try:
    cp._loads_exact(evil, allow=['posix.system'])
except pickle.UnpicklingError as e:
    assert 'at byte' in str(e), str(e)
else:
    raise AssertionError('trailing data accepted')
assert not os.path.exists(marker)
assert cp._loads_exact(b'K\x05.', allow=[], deny=['os']) == 5
