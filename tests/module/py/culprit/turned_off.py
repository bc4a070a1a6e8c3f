calls = []
class Counted:
    def __reduce__(self):
        calls.append(1)
        raise TypeError('counted')
e = failure(lambda: cp.dumps([Counted()]))
assert culprit(e) == 'when pickling <list object>[0] (Counted)', culprit(e)
assert len(calls) > 1, calls
del calls[:]
e = failure(lambda: cp.dumps([Counted()], diagnose=False))
assert str(e) == 'counted' and culprit(e) is None
assert len(calls) == 1, calls
del calls[:]
e = failure(lambda: cp.dump([Counted()], io.BytesIO(), diagnose=0))
assert culprit(e) is None and len(calls) == 1, calls
assert cp.Pickler.diagnose is True
p = cp.Pickler(io.BytesIO())
p.diagnose = False
del calls[:]
e = failure(lambda: p.dump([Counted()]))
assert culprit(e) is None and len(calls) == 1, calls
class Quiet(cp.Pickler):
    diagnose = False
e = failure(lambda: Quiet(io.BytesIO()).dump(locked))
assert culprit(e) is None
# Parsed like any argument; the default is on.
assert cp.dumps(1, diagnose=False) == cp.dumps(1)
import inspect
assert inspect.signature(cp.dumps).parameters['diagnose'].default is True
