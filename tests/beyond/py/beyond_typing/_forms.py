# What the in-process tests share: forms of a script (here __main__).
import ccloudpickle as cp, sys, typing
class Base:
    pass
UserId = typing.NewType('UserId', int)
BaseId = typing.NewType('BaseId', Base)
P = typing.ParamSpec('P', bound=Base, covariant=True)
Ts = typing.TypeVarTuple('Ts')
class R:
    def __init__(self, f, args):
        self.f, self.args = f, args
    def __reduce__(self):
        return (self.f, self.args)
