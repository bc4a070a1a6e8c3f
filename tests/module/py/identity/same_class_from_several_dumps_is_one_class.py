import ccloudpickle as cp, enum, typing
class C:
    pass
class E(enum.Enum):
    A = 1
T = typing.TypeVar('T')
data = cp.dumps([cp.dumps(C), cp.dumps(C()), cp.dumps([C, C]),
                 cp.dumps(E), cp.dumps(E.A), cp.dumps(T),
                 cp.dumps(T, protocol=2)])
