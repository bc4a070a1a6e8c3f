Color, crimson, Perm, rw, Mode, ab, Planet, mars, Coded, no = obj
assert crimson is Color.RED and Color.CRIMSON is Color.RED
assert list(Color) == [Color.RED, Color.GREEN]
assert set(Color.__members__) == {'RED', 'GREEN', 'CRIMSON'}
assert crimson.warm() and not Color.GREEN.warm()
assert rw is Perm.RW and rw == Perm.R | Perm.W
assert Perm(0) is Perm.NONE and not Perm.NONE
assert Perm.X in Perm(7)
assert ab == 3 and ab is Mode(3) and Mode.A | 2 == 3
assert isinstance(ab, int)
assert mars is Planet.MARS and mars.mass == 6.42e23
assert Planet.EARTH.radius == 6.37e6
assert no is Coded.NO and no == 'n' and no.label == 'No'
assert Coded('y') is Coded.YES and Coded.YES.label == 'Yes'
