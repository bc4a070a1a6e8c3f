import typing
T = typing.TypeVar('T')
class Box(typing.Generic[T]):
    def __init__(self, item: T):
        self.item = item
    def get(self) -> T:
        return self.item
class IntBox(Box[int]):
    pass
