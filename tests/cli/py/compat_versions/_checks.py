# Run where `obj` is what build_objects() built, loaded.
import dataclasses, collections
(add, fact, step, double, documented, Point, p, s, Color, green, rw,
 T, dc, DC, mod, keys, values, items, okeys, ovalues, oitems,
 part) = obj
assert add(1) == 12 and fact(5) == 120 and part() == 13
assert step()[0] == 1 and step()[0] == 2 and step()[1] is step
assert double(4) == 8 and double(4, k=3) == 12
assert double.__kwdefaults__ == {'k': 2}
assert documented(1) == 3 and documented.__doc__ == 'Add.'
assert documented.tag == 'kept' and documented.__defaults__ == (2,)
assert documented.__annotations__ == {'b': int, 'return': int}
assert documented.__qualname__ == 'documented'
assert type(p) is Point and p.norm2() == 50 and p.sx == 6
assert Point.origin().x == 0 and Point.unit() == 1
assert Point.__name__ == 'Point'
assert s.a == 5 and not hasattr(s, '__dict__')
assert green is Color.GREEN and Color(1) is Color.RED
assert green.describe() == 'green'
assert [c.name for c in Color] == ['RED', 'GREEN']
Perm = type(rw)
assert rw == 6 and rw == Perm.R | Perm.W and Perm(4) is Perm.R
assert T.__name__ == 'T' and T.__bound__ is Point
assert type(dc) is DC and dc == DC(1, [2]) and DC(0).b == []
assert [f.name for f in dataclasses.fields(dc)] == ['a', 'b']
assert dataclasses.asdict(dc) == {'a': 1, 'b': [2]} and DC.c == 3
assert dataclasses.replace(dc, a=7) == DC(7, [2])
assert DC.__dataclass_fields__['c']._field_type is \
    dataclasses._FIELD_CLASSVAR
assert mod.f() == 3 and mod.__name__ == 'dynmod'
assert list(keys) == ['a', 'b'] and list(values) == [1, 2]
assert list(items) == [('a', 1), ('b', 2)]
assert list(okeys) == ['b', 'a'] and list(ovalues) == [2, 1]
assert list(oitems) == [('b', 2), ('a', 1)]
assert type(okeys) is type(collections.OrderedDict().keys())
