import ccloudpickle
calls = []
class Loop:
    def __reduce__(self):
        calls.append(1)
        def down(n): return down(n + 1)
        return down(0)
try:
    ccloudpickle.dumps([Loop()], diagnose=False)
except ccloudpickle.PicklingError as e:
    assert isinstance(e.__cause__, RecursionError)
else:
    raise AssertionError('dumps succeeded')
assert len(calls) == 1, len(calls)
