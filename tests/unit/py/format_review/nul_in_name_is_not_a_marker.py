import ccloudpickle as cp
assert getattr(cp, '_format_1_0_1_0') is None
for name in ('_format_1_0_1_0\x00x', '_format_9_0_1_0\x00x'):
    try:
        getattr(cp, name)
    except cp.FormatError:
        raise AssertionError(name)
    except AttributeError:
        pass
    else:
        raise AssertionError(name)
