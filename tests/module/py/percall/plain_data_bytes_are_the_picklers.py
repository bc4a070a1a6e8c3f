deep = [[[1]]]
big = list(range(100))
s = 'sp\u00e9cial'
cases = [1, -5, 2**70, 1.5, float('nan'), None, True, False,
         'x', s, b'by', (), [], {}, (1, 'a', None),
         [s, s, s], {'a': 1, 'b': 2.5, 'c': 'x', 'd': None,
         'e': True, 'f': b'by'}, {1: [1, 2], 'k': (3, [4])},
         deep, [[[[1]]]], big, {i: i for i in range(40)}]
for obj in cases:
    for kw in ({}, {'protocol': 2}, {'protocol': 5},
               {'protocol': -1}, {'protocol': 0}):
        got = cp.dumps(obj, **kw)
        assert got == by_pickler(obj, **kw), (obj, kw)
        back = pickle.loads(got)
        assert back == obj or obj != obj, (obj, back)
    assert cp.dumps(obj) == pickle.dumps(obj, 5), obj
