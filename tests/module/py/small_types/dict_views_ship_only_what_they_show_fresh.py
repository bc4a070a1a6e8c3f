k, v, i, ok, ov, oi = obj
assert type(k).__name__ == 'dict_keys' and list(k) == ['k1', 'k2']
assert type(v).__name__ == 'dict_values'
assert list(v) == ['secret1', 'secret2']
assert dict(i) == {'k1': 'secret1', 'k2': 'secret2'}
assert type(ok).__name__ == 'odict_keys' and list(ok) == ['b', 'a']
assert type(ov).__name__ == 'odict_values' and list(ov) == [1, 2]
assert type(oi).__name__ == 'odict_items'
assert list(oi) == [('b', 1), ('a', 2)]
