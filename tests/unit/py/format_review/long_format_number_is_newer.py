import ccloudpickle as cp, pickle
N = b'_format_99999999999999999999_0_7_0'
data = (b'\x80\x04\x8c\x0cccloudpickle\x8c' + bytes([len(N)]) + N + b'\x930K\x07.')
for load in (cp.loads, pickle.loads):
    try:
        load(data)
    except cp.FormatError:
        pass
    else:
        raise AssertionError(load)
