import asyncio, types
def codes(c):
    yield c
    for k in c.co_consts:
        if isinstance(k, types.CodeType):
            yield from codes(k)
def same(f, g):
    a, b = list(codes(f.__code__)), list(codes(g.__code__))
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert x.co_code == y.co_code, (x, y)
        assert x.co_firstlineno == y.co_firstlineno, (x, y)
        assert x.co_filename == y.co_filename, (x, y)
        assert x.co_qualname == y.co_qualname, (x, y)
fns = [M.top, M.sq, M.cube, M.make_adder(4), M.fact, M.gen,
       M.coro, M.fmt, M.comps, M.in_if, M.kwonly,
       M.counter_factory(1)(2), fixture_match.matcher,
       M.Child.hello, M.Child.__dict__['v'].fget,
       M.outer_class().hello]
for f in fns:
    data = cp.dumps(f, portable=True)
    assert 'tuple' in sources(data), f
    g = other(data)
    same(f, g)
    assert g.__qualname__ == f.__qualname__
# For a loader before 3.11 (no co_qualname): in the state.
assert b'__qualname__' in cp.dumps(M.make_adder(4),
                                   portable=True)
assert b'__qualname__' not in cp.dumps(M.make_adder(4))
g = other(cp.dumps(M.make_adder(4), portable=True))
assert g(1) == 5
C = other(cp.dumps(M.Child, portable=True))
assert C().hello() == 'child+base5' and C.make(2).v == 2
co = other(cp.dumps(M.coro, portable=True))
assert asyncio.run(co(3)) == 3
m = other(cp.dumps(fixture_match.matcher, portable=True))
assert m([1, 2]) == 3 and m('a') == 'A'
