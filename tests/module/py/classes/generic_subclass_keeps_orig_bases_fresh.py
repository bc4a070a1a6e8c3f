import typing
Box, IntBox, BoxStr = obj
T, = Box.__parameters__
assert isinstance(T, typing.TypeVar) and T.__name__ == 'T'
assert Box.__orig_bases__ == (typing.Generic[T],)
assert IntBox.__orig_bases__ == (Box[int],)
assert IntBox(3).get() == 3 and issubclass(IntBox, Box)
assert typing.get_origin(BoxStr) is Box
assert typing.get_args(BoxStr) == (str,)
