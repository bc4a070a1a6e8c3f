(Movie, Partial, Sub, Point, Box, Closable, Plain, Checked,
 Row) = obj
m = Movie(title='x', year=1)
assert m == {'title': 'x', 'year': 1} and type(m) is dict
assert Movie.__required_keys__ == {'title', 'year'}, Movie.__dict__
assert Movie.__total__ is True and not Movie.__optional_keys__
assert Partial.__total__ is False
assert Partial.__optional_keys__ == {'note'}
assert Partial() == {} and Partial(note='n') == {'note': 'n'}
assert Sub(title='a', year=2, rating=1.0)['rating'] == 1.0
assert Sub.__required_keys__ == {'title', 'year', 'rating'}
assert Sub.__annotations__['rating'] is float
p = Point(1, -2)
assert p.norm1() == 3 and Point(5).y == 0 and p._fields == ('x', 'y')
assert isinstance(p, tuple) and p._replace(x=4) == (4, -2)
assert Box(3).get() == 3 and len(Box.__parameters__) == 1
assert Box[int].__origin__ is Box
assert isinstance(open('/dev/null'), Closable)
assert not isinstance(3, Closable)
try:
    isinstance(3, Plain)
    raise AssertionError('Plain became runtime checkable')
except TypeError:
    pass
class Impl(Plain):
    def meth(self):
        return 1
assert Impl().meth() == 1
assert type(Checked).__name__ == 'Strict' and Checked(5).get() == 5
assert Checked.__orig_bases__[0].__args__ == (int,)
assert type(Row).__name__ == 'Strict' and Row(1, 2).norm1() == 3
