# The walk itself fails (iterating the set raises): the
# exception from the dump goes out as it was.
class S(set):
    def __iter__(self):
        raise ValueError('iter')
e = failure(lambda: cp.dumps([S([1])]))
assert type(e) is ValueError and e.args == ('iter',), repr(e)
assert culprit(e) is None and e.__context__ is None
# Reading the Pickler's diagnose fails.
class Broken(cp.Pickler):
    @property
    def diagnose(self):
        raise ValueError('diagnose')
e = failure(lambda: Broken(io.BytesIO()).dump(locked))
assert type(e) is TypeError, repr(e)
assert str(e) == "cannot pickle '_thread._local' object", str(e)
assert culprit(e) is None and e.__context__ is None
