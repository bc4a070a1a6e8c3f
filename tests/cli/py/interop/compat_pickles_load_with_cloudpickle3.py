import ccloudpickle as cp, dataclasses
@dataclasses.dataclass
class DC:
    a: int = 1
obj.append(DC)
data = cp.dumps(obj, compat='cloudpickle')
