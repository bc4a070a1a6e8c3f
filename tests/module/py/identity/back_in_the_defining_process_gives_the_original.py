import ccloudpickle as cp, enum, typing
class C:
    attr = 1
    def method(self):
        return GLOBAL
GLOBAL = 'live'
class E(enum.Enum):
    A = 1
    B = 1
T = typing.TypeVar('T')
method = C.method
for proto in (2, 5):
    assert cp.loads(cp.dumps(C, protocol=proto)) is C
    assert type(cp.loads(cp.dumps(C(), protocol=proto))) is C
    assert cp.loads(cp.dumps(E, protocol=proto)) is E
    assert cp.loads(cp.dumps(T, protocol=proto)) is T
# The original's namespace is not replaced by copies.
assert C.method is method and method.__globals__ is globals()
GLOBAL = 'changed'
assert C().method() == 'changed'
