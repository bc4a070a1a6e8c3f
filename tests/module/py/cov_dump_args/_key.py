import ccloudpickle as cp, io
key = b'k' * 32
