import ccloudpickle as cp, pickle
for data in (framed, memo, inst):
    for load in (cp.loads, pickle.loads):
        try:
            load(data)
        except cp.FormatError as e:
            assert 'for format 6;' in str(e), e
        else:
            raise AssertionError(data)
