import ccloudpickle, pickle, sys
for path in (REGRESSIONS + 'code-counts-overflow.pkl',
             CPK_SOURCE_DIR + '/tests/fuzz/cpython_crashes/'
             'code-counts-overflow.pkl'):
    with open(path, 'rb') as f:
        data = f.read()
    try:
        ccloudpickle.loads(data)
    except pickle.UnpicklingError as e:
        # The code was made by 3.11 (its bytecode magic): another
        # version refuses it for that before unmarshalling.
        if sys.version_info[:2] != (3, 11):
            assert 'cannot run' in str(e), e
            continue
        assert isinstance(e, ccloudpickle.ReconstructorValueError)
        assert '_code_unmarshal()' in str(e), e
        assert 'corrupt code' in str(e), e
    else:
        raise AssertionError('loaded ' + path)
