objs = [M.top, M.sq, M.make_adder(3), M.Child, M.comps,
        M.counter_factory(1), M.outer_class(),
        fixture_match.matcher]
for o in objs:
    a = cp.dumps(o, portable=True)
    assert a == cp.dumps(o, portable=True), o
    assert set(sources(a)) == {'tuple'}, (o, sources(a))
