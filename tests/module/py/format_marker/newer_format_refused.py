nxt = b'_format_%d_9_8_7' % (cp.FORMAT + 1)
want = ('written by ccloudpickle 9.8.7 for format %d; this is '
        'ccloudpickle %s (format %d): upgrade the loading side, '
        'or write with format=%d' % (cp.FORMAT + 1,
        cp.__version__, cp.FORMAT, cp.FORMAT))
assert issubclass(cp.FormatError, pickle.UnpicklingError)
for proto in (2, 5):
    data = marked(cp.dumps(task, protocol=proto), nxt)
    for loads in (cp.loads, pickle.loads):
        try:
            loads(data)
        except cp.FormatError as e:
            assert str(e) == want, str(e)
        else:
            raise AssertionError('loaded')
# markers of this and older formats are no-ops; others are
# names this module lacks
assert cp._format_1_0_1_0 is None and getattr(cp, MK.decode()) is None
for name in ('_format_', '_format_x', '_format_5_0_6', 'nope'):
    try:
        getattr(cp, name)
    except AttributeError:
        pass
    else:
        raise AssertionError(name)
