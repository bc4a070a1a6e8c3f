import ccloudpickle as cp, io
calls = []
class Tracing(cp.Pickler):
    def reducer_override(self, obj):
        calls.append(type(obj).__name__)
        return super().reducer_override(obj)
class Plain:
    pass
buf = io.BytesIO()
Tracing(buf).dump([lambda: 1, Plain])
f, P = cp.loads(buf.getvalue())
assert f() == 1 and P.__name__ == 'Plain'
assert 'function' in calls and 'type' in calls
t = Tracing(io.BytesIO())
t.note = 'kept'
assert t.__dict__ == {'note': 'kept'}
import ccloudpickle
assert ccloudpickle.Pickler.reducer_override(cp.Pickler(io.BytesIO()), 1) is NotImplemented
