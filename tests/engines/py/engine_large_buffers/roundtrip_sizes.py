import ccloudpickle, pickle
for n in (65535, 65536, 65537, (1 << 20) - 1, 1 << 20,
          (1 << 20) + 4095, (1 << 20) + 4096, 3 << 20):
    ba = bytearray(i % 251 for i in range(n))
    for obj in (ba, bytes(ba), [ba, b'tail' * 1000],
                [bytes(ba), ba, bytes(ba)],
                (ba, lambda: len(ba))):
        for proto in (2, 4, 5):
            out = pickle.loads(ccloudpickle.dumps(obj, proto))
            if callable(obj[-1]):
                assert out[0] == ba and out[1]() == n
            else:
                assert out == obj, (n, proto)
big = [bytearray(b'%d' % i) * 70000 for i in range(40)]
assert pickle.loads(ccloudpickle.dumps(big)) == big
