# typing.NewType, ParamSpec and TypeVarTuple made in the script: rebuilt,
# one object each across two pickles loaded one after the other, and
# working inside the annotations and generics that use them.
import sys
import typing


def _dumps():
    # Two pickles, each by the pickler under test (run.py imported it).
    for name in ("ccloudpickle", "cloudpickle", "dill"):
        if name in sys.modules:
            return sys.modules[name].dumps
    raise RuntimeError("no pickler imported")


class Account:
    def __init__(self, owner):
        self.owner = owner


UserId = typing.NewType("UserId", int)
AdminId = typing.NewType("AdminId", UserId)
AccountId = typing.NewType("AccountId", Account)
P = typing.ParamSpec("P")
Ts = typing.TypeVarTuple("Ts")
T = typing.TypeVar("T")
R = typing.TypeVar("R")


def apply(f: typing.Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    return f(*args, **kwargs)


class Box(typing.Generic[T, P]):
    pass


class Row(typing.Generic[typing.Unpack[Ts]]):
    pass


def first(row: typing.Tuple[int, typing.Unpack[Ts]]) -> int:
    return row[0]


def admin(n: int) -> AdminId:
    return AdminId(UserId(n))


def make():
    dumps = _dumps()
    return (dumps((UserId, AdminId, AccountId, P, Ts, apply, Box, first)),
            dumps((UserId, AdminId, P, Ts, Row, admin)))
# --- load ---
import sys
import typing

loads = next(sys.modules[n].loads for n in ("ccloudpickle", "cloudpickle",
                                            "dill") if n in sys.modules)
UserId, AdminId, AccountId, P, Ts, apply, Box, first = loads(obj[0])
UserId2, AdminId2, P2, Ts2, Row, admin = loads(obj[1])
# One object per form across the two loads.
assert UserId2 is UserId and AdminId2 is AdminId, (UserId2, UserId)
assert P2 is P and Ts2 is Ts, (P2, P)
# NewType: callable, its supertype (a NewType, a class by value), names.
assert UserId(5) == 5 and UserId.__supertype__ is int
assert AdminId.__supertype__ is UserId
assert (UserId.__name__, UserId.__qualname__) == ("UserId", "UserId")
assert UserId.__module__ == "__main__", UserId.__module__
Account = AccountId.__supertype__
acc = Account("ann")
assert AccountId(acc) is acc and acc.owner == "ann"
assert admin(7) == 7 and admin.__annotations__["return"] is AdminId
# ParamSpec and TypeVarTuple: their kind, and the same object in the
# annotations and generics of the functions and classes that use them.
assert isinstance(P, typing.ParamSpec) and P.__name__ == "P"
assert isinstance(Ts, typing.TypeVarTuple) and Ts.__name__ == "Ts"
f_hint = apply.__annotations__["f"]
assert typing.get_args(f_hint)[0] is P, typing.get_args(f_hint)
assert apply.__annotations__["args"].__origin__ is P
assert apply.__annotations__["kwargs"].__origin__ is P
assert apply(lambda x, y: x + y, 2, y=3) == 5
assert Box.__parameters__[1] is P, Box.__parameters__
assert Row.__parameters__ == (Ts,) and Row.__parameters__[0] is Ts
unpacked = typing.get_args(first.__annotations__["row"])[1]
assert typing.get_args(unpacked)[0] is Ts
assert first((1, "a", "b")) == 1
