import ccloudpickle as cp
big = b'z' * (20 << 20)
for proto in (2, 4, 5):
    data = cp.dumps([big, big[:10]], protocol=proto)
    out = cp.loads(data)
    assert out[0] == big and out[1] == b'z' * 10
    out = cp.loads(memoryview(data))
    assert out[0] == big
