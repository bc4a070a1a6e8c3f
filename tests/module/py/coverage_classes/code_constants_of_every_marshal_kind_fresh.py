f, expect = obj
r = f('beta')
assert r == expect, (r, expect)
assert r[0] == 2 ** 100 + 12345 and r[2] == 3.5 - 1.25j
assert r[5] == 'h\u00e9llo \u2603'
assert r[7] == 'y' * 300 and r[8] == 300 and r[9] == 299
assert r[10] is True and f(b'd')[10] is True
assert f('delta')[10] is False
assert r[11] == [6, (1, 'two', None, True, ...)]
