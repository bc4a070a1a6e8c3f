import ccloudpickle, pickle
import multiprocessing.reduction as red
ccloudpickle.install_multiprocessing()
ccloudpickle.install_multiprocessing(False)
orig = red.ForkingPickler
old = orig._extra_reducers
class T:
    pass
fresh = dict(old)
fresh[T] = lambda obj: (int, (5,))
orig._extra_reducers = fresh
try:
    ccloudpickle.install_multiprocessing()
    assert red.ForkingPickler._extra_reducers is fresh
    assert pickle.loads(red.ForkingPickler.dumps(T())) == 5
finally:
    ccloudpickle.install_multiprocessing(False)
    orig._extra_reducers = old
