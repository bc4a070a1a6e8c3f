import ccloudpickle as cp, io, gc
freed = []
class Fin:
    def __del__(self):
        freed.append(1)
u = cp.Unpickler(io.BytesIO(cp.dumps(7)))
assert u.load() == 7
u.fin = Fin()
u.me = u
del u
gc.collect()
assert freed == [1], freed
