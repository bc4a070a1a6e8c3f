import sys, typing
class Item:
    pass
T = typing.TypeVar('T')
hints = [typing.List[Item], typing.Dict[str, typing.List[T]],
         typing.Literal['a', 1], typing.Final[Item],
         typing.ClassVar[typing.List[int]], typing.Union[Item, int],
         typing.Optional[Item], typing.Callable[[Item], T],
         typing.Tuple[Item, ...], list[Item],
         # X | None (types.UnionType) is 3.10's, PEP 604.
         Item | None if sys.version_info >= (3, 10) else None]
