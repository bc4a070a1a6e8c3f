import collections, enum
class I(int): pass
class F(float): pass
class S(str): pass
class L(list): pass
class D(dict): pass
class E(enum.IntEnum):
    A = 3
cases = [None, True, False, 0, -1, 1, 2**63 - 1, -2**63, 2**63,
    -2**64 - 1, 10**300, 0.0, -0.0, 1.5, 1e16, 1e-7, 1/3,
    5e-324, 1.7976931348623157e308, '', 'plain', 'caf\u00e9',
    '\u65e5\u672c', '\U0001f600', 'q"b\\s/\x00\x01\x1f\x7f'
    '\b\f\n\r\t\u2028\u2029', [], (), {}, [1, [2, [3, []]]],
    (1, 'a', None), {'a': 1, 'b': [True, None, 2.5], '': {}},
    {'\u00e9\n': 'x'}, {1: 'int key', 2.5: 'f', True: 't',
    None: 'n'}, I(5), F(2.5), S('s'), L([1]), D(a=1), E.A,
    collections.OrderedDict(b=1, a=2), [[[[[[[[[[1]]]]]]]]]],
    [{'k': [1, 'x', {'y': None}]}] * 3]
got = enc_many('json', cases)
for c, g in zip(cases, got):
    assert g == dumps(c), (c, g, dumps(c))
