class Thing: pass
deep = []
for _ in range(100000):
    deep = [deep]
loop = [1]
loop.append(loop)
d = {}
d['self'] = d
cases = {
  'set': ({1}, "cannot encode a result of type 'set' as JSON"),
  'obj': (Thing(), "cannot encode a result of type 'Thing' as JSON"),
  'nested': ([1, {2}], "cannot encode a result of type 'list' as JSON: Object of type set is not JSON serializable"),
  'nan': (float('nan'), "cannot encode a result of type 'float' as JSON: Out of range float values are not JSON compliant"),
  'inf': ([1, -math.inf], "cannot encode a result of type 'list' as JSON: Out of range float values are not JSON compliant"),
  'loop': (loop, "cannot encode a result of type 'list' as JSON: Circular reference detected"),
  'dloop': (d, "cannot encode a result of type 'dict' as JSON: Circular reference detected"),
  'key': ({(1, 2): 3}, "cannot encode a result of type 'dict' as JSON: keys must be str, int, float, bool or None, not tuple"),
  'surrogate': ('a\udc80', "cannot encode a result of type 'str' as JSON: a string holds the lone surrogate '\\udc80', which UTF-8 cannot encode"),
  'surrogate2': ({'k': ['\ud800x']}, "cannot encode a result of type 'dict' as JSON: a string holds the lone surrogate '\\ud800', which UTF-8 cannot encode"),
  'deep': (deep, None),
}
got = enc_many('json', [c[0] for c in cases.values()])
for (name, (obj, want)), g in zip(cases.items(), got):
    assert isinstance(g, str), (name, g)
    if want is None:
        assert g.startswith("cannot encode a result of type 'list' as JSON: maximum recursion depth exceeded"), g
    else:
        assert g.startswith(want), (name, g, want)
# After failures, the same encoder still encodes.
got = enc_many('json', [loop, [1, [2]], {1}, {'a': [1]}])
assert got[1:4:2] == [b'[1,[2]]\n', b'{"a":[1]}\n'], got
