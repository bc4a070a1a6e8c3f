import ccloudpickle as cp
for i, src in ((4, ('x', 'f', 'n', True, 0, 0)),
               (5, ('x', 'f', 'n', 1, False, 0)),
               (6, ('x', 'f', 'n', 1, 0, True))):
    try:
        cp._code_portable('3.0.0', 1, b'', src)
    except cp.ReconstructorTypeError as e:
        assert str(e) == '_code_portable() argument 4 (source) '\
            'item %d must be exactly int, not bool' % i, str(e)
    else:
        raise AssertionError(src)
