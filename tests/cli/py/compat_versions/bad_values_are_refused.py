import io, ccloudpickle as cp
ACCEPTED = "compat must be None or 'cloudpickle', 'cloudpickle2', 'cloudpickle3' or a cloudpickle release ('2.0', '2.1', '2.2', '3.0', '3.1', '2.0.0', '2.1.0', '2.2.0', '2.2.1', '3.0.0', '3.1.0', '3.1.1', '3.1.2'), not "
bad = ['dill', '', '2', '3', '2.', '2.2.', '.2', '2.2.0.0', 'v2.2',
       ' 2.2', '2.2 ', '2.2\n', '2.2rc1', '2.2.0rc1', '02.2', '2.02',
       '2.2.01', '1.6.0', '1.6', '0.8.0', '2.3', '2.2.2', '3.2', '3.1.3',
       '4.0', 'Cloudpickle', 'CLOUDPICKLE3', 'cloudpickle4',
       'cloudpickle1', 'cloudpickle 3', 'cloudpickle.cloudpickle',
       '2.2\x00', '3.1.2\x00', '\uff12.\uff12', '\ud800', 2.2, 3,
       b'2.2', ('2', '2'), True]
for v in bad:
    for call in (lambda: cp.dumps(1, compat=v),
                 lambda: cp.dump(1, io.BytesIO(), compat=v),
                 lambda: cp.Pickler(io.BytesIO(), compat=v)):
        try:
            call()
        except ValueError as e:
            assert str(e) == ACCEPTED + repr(v), str(e)
        else:
            raise AssertionError(repr(v))
good = ['cloudpickle', 'cloudpickle2', 'cloudpickle3', '2.0',
        '2.0.0', '2.1', '2.1.0', '2.2', '2.2.0', '2.2.1', '3.0',
        '3.0.0', '3.1', '3.1.0', '3.1.1', '3.1.2', None]
for v in good:
    f = lambda x: x + 1
    assert cp.loads(cp.dumps(f, compat=v))(1) == 2
    buf = io.BytesIO()
    cp.dump(f, buf, compat=v)
    p = cp.Pickler(io.BytesIO(), compat=v)
    assert cp.loads(buf.getvalue())(2) == 3
