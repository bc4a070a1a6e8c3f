import ccloudpickle as cp, io
class Special:
    pass
seen = []
class Sub(cp.Pickler):
    def reducer_override(self, obj):
        if isinstance(obj, Special):
            return (str, ('special',))
        return super().reducer_override(obj)
    def dump(self, obj):
        seen.append(obj)
        return super().dump(obj)
y = 2
buf = io.BytesIO()
Sub(buf).dump([Special(), lambda: y])
s, f = cp.loads(buf.getvalue())
assert s == 'special' and f() == 2 and len(seen) == 1
# A reducer_override that skips ours: plain pickle rules.
class Plain(cp.Pickler):
    def reducer_override(self, obj):
        return NotImplemented
try:
    Plain(io.BytesIO()).dump(lambda: 1)
    raise AssertionError('lambda pickled by reference')
except Exception as e:
    assert 'lambda' in str(e), e
# A dump() that never calls ours: nothing written, no crash.
class Noop(cp.Pickler):
    def dump(self, obj):
        return 'nothing'
b = io.BytesIO()
assert Noop(b).dump(1) == 'nothing' and b.getvalue() == b''
# A reducer_override that raises: the error, unchanged.
class Raising(cp.Pickler):
    def reducer_override(self, obj):
        raise ValueError('from reducer_override')
try:
    Raising(io.BytesIO()).dump(lambda: 1)
    raise AssertionError('error lost')
except ValueError as e:
    assert str(e) == 'from reducer_override'
