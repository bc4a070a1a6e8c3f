import ccloudpickle as cp, io
for name, call in (('dumps', lambda: cp.dumps(1, 5, protocol=4)),
                   ('dump', lambda: cp.dump(1, io.BytesIO(), 4,
                                             protocol=4))):
    try:
        call()
    except TypeError as e:
        assert str(e) == '%s() got multiple values for argument '\
            "'protocol'" % name, e
    else:
        raise AssertionError(name)
assert cp.loads(cp.dumps(1, 4)) == 1
