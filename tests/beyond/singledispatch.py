# functools.singledispatch defined by value: implementations for builtin
# types, for classes defined by value and for ABCs (a stdlib one and one
# defined here, with register()) dispatch after loading; an implementation
# that calls the dispatcher (a global) recurses through the loaded one.
import abc
import collections.abc
import functools


class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y


class Shape(abc.ABC):
    pass


class Square:
    pass


Shape.register(Square)


@functools.singledispatch
def describe(x):
    return "object"


@describe.register
def _(x: int):
    return "int"


@describe.register(list)
def _(x):
    return "list[" + ",".join(describe(i) for i in x) + "]"


describe.register(collections.abc.Sequence, lambda x: "sequence")
describe.register(Point, lambda p: "point(%d,%d)" % (p.x, p.y))
describe.register(Shape, lambda s: "shape")
describe.label = "describer"
describe(1), describe([1, (2,)]), describe(Square())  # fill the caches


def make():
    return describe, Point, Square, Shape
# --- load ---
import collections.abc

describe, Point, Square, Shape = obj
assert describe(1) == "int"
assert describe(True) == "int"  # bool is an int
assert describe(1.5) == "object"
assert describe("ab") == "sequence"  # str is a Sequence (ABC)
assert describe((1, 2)) == "sequence"
assert describe([1, "a", [2.0]]) == "list[int,sequence,list[object]]"
assert describe(Point(1, 2)) == "point(1,2)"
assert describe(Square()) == "shape"  # registered on a by-value ABC
assert describe.label == "describer"
assert describe.__name__ == "describe"
assert describe.__wrapped__(5) == "object"
keys = list(describe.registry)
assert keys[:3] == [object, int, list], keys
assert keys[3] is collections.abc.Sequence and keys[4] is Point, keys
assert keys[5] is Shape, keys


# A registration made after loading goes through the rebuilt caches.
class Sub(Point):
    pass


assert describe(Sub(3, 4)) == "point(3,4)"
describe.register(Sub, lambda s: "sub")
assert describe(Sub(3, 4)) == "sub"
assert describe.dispatch(float) is describe.registry[object]


# A class registered on the ABC after loading dispatches to it too.
class Circle:
    pass


Shape.register(Circle)
assert describe(Circle()) == "shape"
