S, s, One = obj
assert s.a == 1 and s.hidden() == 2
assert not hasattr(s, '__dict__')
try:
    s.other = 1
    raise AssertionError('slots lost')
except AttributeError:
    pass
o = One(); o.only = 3
assert o.only == 3 and not hasattr(o, '__dict__')
