# Constants of every kind marshal writes: each goes through the pass that
# makes the payload compact and independent of the hash seed.
src = r'''def consts(x):
    big = 2 ** 100 + 12345
    neg = -(2 ** 70)
    c = 3.5 - 1.25j
    f = 0.1
    b = b'\x00raw\xff'
    u = 'h\u00e9llo \u2603'
    long_ascii = 'abcdefghij' * 30
    long_lit = '%s'
    tup = %s
    fs = x in {'alpha', 'beta', 'gamma', b'd', 1.5, (1, 2)}
    def inner(y, k=(1, 'two', None, True, ...)):
        return [y * 2, k]
    return (big, neg, c, f, b, u, long_ascii, long_lit, len(tup),
            tup[299], fs, inner(3))
''' % ('y' * 300,
    '(' + ', '.join(str(i) for i in range(300)) + ',)')
exec(src)
