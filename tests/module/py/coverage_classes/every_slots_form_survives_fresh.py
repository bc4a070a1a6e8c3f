import weakref
P, p, OneStr, DictSlots, WithDict, Dunder, adoc = obj
assert p.secret() == 's' and p.double == 4
assert P.cname() == '__Priv' and P.inc(1) == 2
assert p.__class__ is P and not hasattr(p, '__dict__')
r = weakref.ref(p)
assert r() is p
q = P()
assert q.secret() == 's'
assert '_Priv__secret' in P.__dict__
o = OneStr(); o.only = 1
assert o.only == 1 and not hasattr(o, '__dict__')
d = DictSlots(); d.a = 1; d.b = 2
assert (d.a, d.b) == (1, 2)
assert not hasattr(d, '__dict__')
assert DictSlots.a.__doc__ == adoc
assert dict(DictSlots.__slots__) == {'a': 'doc of a', 'b': 'doc of b'}
w = WithDict(); w.z = 1; w.free = 2
assert w.__dict__ == {'free': 2} and w.z == 1
u = Dunder(); u.__x__ = 5
assert u.__x__ == 5
try:
    o.other = 1
except AttributeError:
    pass
else:
    raise AssertionError('OneStr grew a __dict__')
