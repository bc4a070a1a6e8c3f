class K:
    def __repr__(self): raise KeyboardInterrupt
    def __reduce__(self): raise MemoryError
for fmt, exc in (('repr', KeyboardInterrupt), ('pickle', MemoryError), ('json', None)):
    try:
        r = enc(fmt, K())
    except BaseException as e:
        assert type(e) is exc, (fmt, e)
    else:
        assert exc is None and r == "cannot encode a result of type 'K' as JSON", (fmt, r)
