class K:
    __init__ = functools.partial(f)
class H:
    __hash__ = functools.partial(f)
    __eq__ = functools.partial(f)
refused(R(K, ()), 'partial __init__')
refused(R(dict, ([(R(H, ()), 1)],)), 'partial __hash__')
refused({R(H, ()): 1}, 'partial __hash__, a dict key')
