w = cp._singledispatch_new(plain)
assert w('a') == 'a' and w.__wrapped__ is plain
assert cp._singledispatch_fill(w, (((int, lambda x: -x),), {'tag': 1})) is None
assert w(2) == -2 and w.tag == 1
assert list(w.registry) == [object, int]
try:
    cp._singledispatch_fill(w, (((str, 1),), {}))
except TypeError:
    pass
assert w('a') == 'a' and list(w.registry) == [object, int]
f = cp._lru_cache_new(plain, -5, True)
assert f.cache_parameters() == {'maxsize': 0, 'typed': True}
assert f(3) == 3 and f.__wrapped__ is plain
