# Python that defines `marker` (a path that does not exist yet) and
# `exists()`; `evil` is a pickle (protocol 5, by pickle itself) that runs
# os.system('touch <marker>'), `evil_os` the same spelled GLOBAL os system
# (protocol 0, hand-written).
import ccloudpickle as cp, pickle, os, tempfile
marker = os.path.join(tempfile.mkdtemp(), 'marker')
def exists():
    return os.path.exists(marker)
class Evil:
    def __reduce__(self):
        return (os.system, ('touch ' + marker,))
evil = {p: pickle.dumps(Evil(), protocol=p) for p in range(6)}
evil_os = (b'cos\nsystem\n(S\'touch ' + marker.encode() +
           b'\'\ntR.')
def refused(data, fragment, **kw):
    try:
        cp.loads(data, **kw)
    except pickle.UnpicklingError as e:
        assert fragment in str(e), (fragment, str(e))
        assert not exists(), 'the refused pickle ran'
        return str(e)
    raise AssertionError('not refused: %r' % (kw,))
