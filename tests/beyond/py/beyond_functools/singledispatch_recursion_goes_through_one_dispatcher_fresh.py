d, P, walk = obj
assert d([1, [P(), 2.0]]) == ['int', ['P', 'obj']]
impl = d.registry[list]
assert impl.__globals__['d'] is d
assert d.dispatch(bool) is d.registry[int]
assert walk.__wrapped__.__globals__['walk'] is walk
assert walk((1, ('a', 2))) == [1, [0, 1]]
assert list(walk.registry) == [object, int]
