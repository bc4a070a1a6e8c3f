# The review's reproduction: an inner pickle that runs a command (here:
# creates `marker`), inside an outer pickle that calls _rebuild on it.
import ccloudpickle as cp, pickle, os, tempfile
import _ccloudpickle_engines as E
marker = os.path.join(tempfile.mkdtemp(), 'marker')
class R:
    def __reduce__(self):
        return (os.system, ('touch ' + marker,))
inner = pickle.dumps(R())
class W:
    def __reduce__(self):
        return (E._rebuild, (inner, False))
outer = pickle.dumps(W())
def refused(fragment, **kw):
    try:
        cp.loads(outer, **kw)
    except cp.PolicyError as e:
        assert fragment in str(e), (fragment, str(e))
        assert not os.path.exists(marker), 'the inner pickle ran'
        assert cp._load_policy.get(None) is None
        return
    raise AssertionError('not refused: %r' % (kw,))
