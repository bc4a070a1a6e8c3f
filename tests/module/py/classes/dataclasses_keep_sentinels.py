import dataclasses, typing
@dataclasses.dataclass(frozen=True)
class Config:
    name: str
    tags: list = dataclasses.field(default_factory=list)
    limit: typing.ClassVar[int] = 10
    seed: dataclasses.InitVar[int] = 0
    def __post_init__(self, seed):
        object.__setattr__(self, 'derived', seed * 2)
