for stop in (KeyboardInterrupt, SystemExit, MemoryError):
    calls = []
    class Stop:
        def __reduce__(self):
            calls.append(1)
            if len(calls) == 1:
                raise TypeError('first')
            raise stop('second')
    e = failure(lambda: cp.dumps([Stop()]))
    assert type(e) is stop and e.args == ('second',), repr(e)
    ctx = e.__context__
    assert type(ctx) is TypeError and ctx.args == ('first',), ctx
    assert ctx.__traceback__ is not None
    assert not hasattr(ctx, '__notes__')
    assert len(calls) == 2, calls
