import ccloudpickle as cp, io, contextlib
for data in (framed, memo, ran, inst):
    for kw in ({'allow': ['builtins.print']}, {'deny': ['os']}):
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out):
                cp.loads(data, **kw)
        except cp.FormatError as e:
            assert 'for format 6;' in str(e), e
        else:
            raise AssertionError((data, kw))
        assert out.getvalue() == '', out.getvalue()
