refused(R(sorted, ([Color.RED, Color.GREEN],)), 'sorted')
refused(R(str, ([Color.RED],)), 'str of a list')
refused(R(frozenset, ([Color.RED],)), 'frozenset by REDUCE')
refused(R(bytes, ([Color.RED],)), 'bytes')
refused(R(type, ('X', (object,), {'d': Color.RED})),
        'type with a member in the namespace')
refused(R(type, ('X', (Base,), {})), 'type: __init_subclass__')
refused(R(functools.partial(sorted, key=f), ([1, 2],)),
        'partial(sorted, key=f) called')
refused(R(sorted, ([[(Color.RED,)], [(Color.GREEN,)]],)),
        'sorted, nested deeper')
refused(R(str, ({'k': [Color.RED]},)), 'str, a dict value')
