raised = []
class Bad:
    def __reduce__(self):
        try:
            1 / 0
        except ZeroDivisionError as z:
            raised.append(pickle.PicklingError('no Bad'))
            raise raised[-1] from z
e = failure(lambda: cp.dumps({'b': Bad()}))
assert e is raised[0], (e, raised)
assert type(e) is pickle.PicklingError
assert type(e.__cause__) is ZeroDivisionError
assert culprit(e) == "when pickling <dict object>['b'] (Bad)", culprit(e)
import traceback
names = [f.name for f in traceback.extract_tb(e.__traceback__)]
assert '__reduce__' in names, names
# Other types, other args.
class Odd:
    def __init__(self, exc):
        self.exc = exc
    def __reduce__(self):
        raise self.exc
for exc in (ValueError('v'), AttributeError('a'), OSError(5, 'io'),
            KeyError('k'), TypeError('a', 'b'), RuntimeError()):
    e = failure(lambda: cp.dumps([Odd(exc)]))
    assert e is exc, (e, exc)
    if NOTES:
        assert e.__notes__ == ['when pickling <list object>[0] (Odd)'], e.__notes__
    else:
        # Only a message that is exactly its one str argument changes.
        simple = type(e) in (ValueError, AttributeError)
        assert (culprit(e) is not None) == simple, (e, e.args)
    assert type(e) is type(exc)
