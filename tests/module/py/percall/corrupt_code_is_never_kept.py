import ccloudpickle as cp, importlib.util
magic = int.from_bytes(importlib.util.MAGIC_NUMBER, 'little')
for _ in range(3):
    try:
        cp._code_unmarshal('x', magic, b'\xe3garbage')
    except cp.UnpicklingError as e:
        assert 'corrupt' in str(e), e
    else:
        raise AssertionError('corrupt code loaded')
