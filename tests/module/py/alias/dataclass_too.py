import dataclasses
@dataclasses.dataclass
class DC:
    a: int = 1
obj.append(DC)
