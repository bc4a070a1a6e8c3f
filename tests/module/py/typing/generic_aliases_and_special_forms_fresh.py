import typing
(lst, dct, lit, fin, cv, uni, opt, call, tup, l2, u2) = obj
Item = typing.get_args(lst)[0]
assert typing.get_origin(lst) is list
T = typing.get_args(typing.get_args(dct)[1])[0]
assert isinstance(T, typing.TypeVar)
assert typing.get_args(lit) == ('a', 1)
assert typing.get_origin(fin) is typing.Final
assert typing.get_args(fin) == (Item,)
assert typing.get_origin(cv) is typing.ClassVar
assert typing.get_args(uni) == (Item, int)
assert opt == typing.Optional[Item]
assert typing.get_args(call) == ([Item], T)
assert typing.get_args(tup) == (Item, ...)
assert l2 == list[Item]
assert u2 == (Item | None if sys.version_info >= (3, 10)
              else None)
