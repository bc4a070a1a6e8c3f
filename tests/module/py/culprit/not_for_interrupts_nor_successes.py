for stop in (KeyboardInterrupt, SystemExit, MemoryError):
    calls = []
    class Stop:
        def __reduce__(self):
            calls.append(1)
            raise stop('now')
    e = failure(lambda: cp.dumps({'k': Stop()}))
    assert type(e) is stop and str(e) == 'now', repr(e)
    assert len(calls) == 1 and not hasattr(e, '__notes__')
# A dump that works runs each reducer once, as before.
calls = []
class Fine:
    def __reduce__(self):
        calls.append(1)
        return (Fine, ())
assert type(cp.loads(cp.dumps([Fine(), 1]))[0]) is Fine
f = io.BytesIO()
cp.dump({'f': Fine()}, f)
cp.Pickler(io.BytesIO()).dump(Fine())
assert len(calls) == 3, calls
