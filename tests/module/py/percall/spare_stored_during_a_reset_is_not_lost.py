import ccloudpickle as cp, gc
class Tmp:
    def __del__(self):
        cp.dumps(lambda: 1)
class Holder:
    def __reduce__(self):
        return (tuple, ((Tmp(),),))
def picklers():
    gc.collect()
    return sum(type(o) is cp.Pickler for o in gc.get_objects())
cp.dumps(lambda: 0)
for _ in range(200):
    cp.dumps(Holder())
assert picklers() == 1, picklers()
# A large pickle's Pickler is not kept (its memo table).
cp.dumps([lambda: 0] + [[] for _ in range(20000)])
assert picklers() == 0, picklers()
cp.dumps(lambda: 0)
assert picklers() == 1, picklers()
