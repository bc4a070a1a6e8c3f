import ccloudpickle as cp, io
class Tagged:
    pass
class MyPickler(cp.Pickler):
    seen = 0
    def reducer_override(self, obj):
        if isinstance(obj, Tagged):
            return (str, ('tagged',))
        MyPickler.seen += 1
        return super().reducer_override(obj)
buf = io.BytesIO()
p = MyPickler(buf, protocol=4)
assert p.proto == 4
p.dump([Tagged(), lambda: 5])
t, f = cp.loads(buf.getvalue())
assert t == 'tagged' and f() == 5 and MyPickler.seen > 0
p.extra = 'instances have a __dict__'
