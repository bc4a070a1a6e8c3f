import ccloudpickle, pickle, multiprocessing.reduction as r
orig = r.ForkingPickler
ccloudpickle.install_multiprocessing()
ccloudpickle.install_multiprocessing()
cls = r.ForkingPickler
assert cls is not orig and issubclass(cls, ccloudpickle.Pickler)
import multiprocessing.connection as c, multiprocessing.queues as q
assert c._ForkingPickler is cls and q._ForkingPickler is cls
f = pickle.loads(cls.dumps(lambda x: x + 1))
assert f(1) == 2
ccloudpickle.install_multiprocessing(False)
assert r.ForkingPickler is orig and c._ForkingPickler is orig
class A:
    z = 5
    def m(self):
        return 6
w = ccloudpickle.wrap(A())
assert w.z == 5 and w.m() == 6 and not callable(w)
assert ccloudpickle.wrap(w) is w
w2 = pickle.loads(pickle.dumps(w, protocol=2))
assert w2.z == 5 and type(w2) is type(w)
assert 'ccloudpickle.wrap(' in repr(w)
