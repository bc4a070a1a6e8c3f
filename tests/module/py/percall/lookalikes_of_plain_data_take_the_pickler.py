import enum, collections
class Color(enum.IntEnum):
    RED = 1
class S(str):
    pass
class D(dict):
    pass
for obj in [Color.RED, S('x'), D(a=1), [Color.RED],
            {'k': S('y')}, collections.OrderedDict(a=1),
            (lambda: 1,), {'f': len}, [1] * 100]:
    got = cp.dumps(obj)
    assert got == by_pickler(obj), obj
back = cp.loads(cp.dumps([Color.RED]))
assert type(back[0]) is Color
assert type(cp.loads(cp.dumps({'k': S('y')}))['k']) is S
assert cp.loads(cp.dumps((lambda: 7,)))[0]() == 7
