def refused(call):
    try:
        call()
    except ValueError as e:
        assert 'portable' in str(e), e
    else:
        raise AssertionError('accepted')
for compat in ('cloudpickle3', 'cloudpickle2', '3.1.2'):
    refused(lambda: cp.dumps(M.top, portable=True, compat=compat))
    refused(lambda: cp.dump(M.top, io.BytesIO(), portable=True,
                            compat=compat))
    refused(lambda: cp.Pickler(io.BytesIO(), portable=True,
                               compat=compat))
    cp.dumps(M.top, compat=compat)
    cp.dumps(M.top, portable=False, compat=compat)
