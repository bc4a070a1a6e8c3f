import math, _pickle
def task(x):
    return math.floor(x)
seen = []
def pid(obj):
    seen.append(obj)
    return None
class ViaGetattr(cp.Pickler):
    def __getattr__(self, name):
        if name == 'persistent_id':
            return pid
        raise AttributeError(name)
# 3.13 looks persistent_id up as a method, which the class
# has: __getattr__ is never asked there
class Sub(cp.Pickler):
    def persistent_id(self, obj):
        return pid(obj)
ways = [Sub]
if sys.version_info < (3, 13):
    ways.append(lambda b: ViaGetattr(b))
    def via_descriptor(b):
        p = cp.Pickler(b)
        _pickle.Pickler.persistent_id.__set__(p, pid)
        return p
    def via_attribute(b):
        p = cp.Pickler(b)
        p.persistent_id = pid
        return p
    ways += [via_descriptor, via_attribute]
for make in ways:
    del seen[:]
    buf = io.BytesIO()
    make(buf).dump(task)
    assert any(o is math for o in seen), make
    assert '_function_make' not in names(buf.getvalue()), make
    assert pickle.loads(buf.getvalue())(2.5) == 2
