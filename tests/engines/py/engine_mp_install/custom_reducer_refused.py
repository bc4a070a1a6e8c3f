import ccloudpickle, multiprocessing as mp
import multiprocessing.reduction as red
import multiprocessing.queues as queues
import multiprocessing.connection as conn
import _ccloudpickle_engines as E
class MyFP(red.ForkingPickler):
    pass
class MyReducer(red.AbstractReducer):
    ForkingPickler = MyFP
    register = MyFP.register
def refused(fragment):
    before = (red.ForkingPickler, queues._ForkingPickler,
              conn._ForkingPickler)
    try:
        ccloudpickle.install_multiprocessing()
    except RuntimeError as e:
        assert fragment in str(e), (fragment, str(e))
        assert 'custom reducer' in str(e), str(e)
    else:
        raise AssertionError('installed over ' + fragment)
    assert not E._installed()
    assert (red.ForkingPickler, queues._ForkingPickler,
            conn._ForkingPickler) == before
ctx = mp.get_context('spawn')
old = ctx.reducer
ctx.reducer = MyReducer
refused('MyReducer')
ctx.reducer = old
for module, name in ((queues, '_ForkingPickler'),
                     (conn, '_ForkingPickler'),
                     (red, 'ForkingPickler')):
    saved = getattr(module, name)
    setattr(module, name, MyFP)
    refused('MyFP')
    setattr(module, name, saved)
ccloudpickle.install_multiprocessing()
assert E._installed()
assert queues._ForkingPickler is red.ForkingPickler
ccloudpickle.install_multiprocessing(False)
assert red.ForkingPickler.__qualname__ == 'ForkingPickler'
assert red.ForkingPickler.__module__ == 'multiprocessing.reduction'
