d(1), d([1]), fib(10)
for o in (d, fib):
    a = cp.dumps(o)
    assert a == cp.dumps(o)
    o2 = cp.loads(a, allow=[])
    assert o2 is not o
assert cp.loads(cp.dumps(d), allow=[])([2]) == ['int']
f2 = cp.loads(cp.dumps(fib), allow=[])
assert f2.cache_info().currsize == 0
assert fib.cache_info().currsize > 0
# the original dispatcher is left as it was
assert list(d.registry) == [object, list, int, P]
