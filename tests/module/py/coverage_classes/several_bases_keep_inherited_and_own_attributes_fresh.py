A, B, C, D, c = obj
assert C.__bases__ == (A, B) and D.__bases__ == (B, A)
assert isinstance(c, C) and isinstance(c, B)
assert c.am() == 'a' and c.bm() == 'b'
assert c.who() == 'C.who+A.who'
assert C.tag == 'A' and D.tag == 'B'
assert C.only_b == 7 and D().am() == 'a'
assert C.both is A.both
assert [k.__name__ for k in C.__mro__] == ['C', 'A', 'B', 'object']
