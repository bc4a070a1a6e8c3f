"""Functions and classes the portable matrix (matrix.py) pickles by value
under one CPython and calls under another. Syntax of 3.9 only: every
version imports it (fixture_match.py holds the 3.10+ match statements)."""
import functools
import math
from os import path as os_path

SCALE = 3


def top(x, y=2, *, z=1):
    """A top-level function with defaults."""
    return x * y + z + SCALE


sq = lambda v: v * v; cube = lambda v: v ** 3  # noqa: E702,E731


def make_adder(n):
    def add(x):
        return x + n
    return add


def fact(n):
    return 1 if n <= 1 else n * fact(n - 1)


def deco(f):
    @functools.wraps(f)
    def wrapper(*a, **kw):
        return f(*a, **kw) + 100
    return wrapper


@deco
def decorated(x):
    return x * 2


def gen(n):
    for i in range(n):
        yield i * 2
    return "done"


async def coro(x):
    total = 0
    async for v in agen(x):
        total += v
    return total


async def agen(n):
    for i in range(n):
        yield i


class Base:
    def hello(self):
        return "base"


class Child(Base):
    __secret = 5

    def __init__(self, v=1):
        self._v = v

    def hello(self):
        return "child+" + super().hello() + str(self.__secret)

    @property
    def v(self):
        return self._v

    @v.setter
    def v(self, value):
        self._v = value * 10

    @classmethod
    def make(cls, v):
        return cls(v)

    @staticmethod
    def helper(v):
        return v + 1


def outer_class():
    k = 3

    class Inner(Base):
        def hello(self):
            return super().hello() + str(k)
    return Inner


def counter_factory(start):
    """Nested functions returning closures (nonlocal state, two levels)."""
    count = start

    def make_step(step):
        def bump():
            nonlocal count
            count += step
            return count
        return bump
    return make_step


def fmt(x, width=8):
    return f"{x!r:>{width}}|{x * 2:03d}|{'nested ' + f'{x}'}"


def comps(n):
    """Comprehensions (inlined from 3.12) capturing and shadowing."""
    k = 2
    squares = [i * k for i in range(n)]
    fns = [lambda j=i: j * k for i in range(n)]
    table = {i: {j for j in range(i)} for i in range(n)}
    g = sum(x for x in squares if x % 2 == 0)
    return squares, [f() for f in fns], table, g


if SCALE:
    def in_if(x):
        """A def indented under an if at module level."""
        return x - SCALE


class Outer:
    class Nested:
        def where(self):
            return type(self).__qualname__

    def method_lambda(self):
        return (lambda: self.__class__.__name__)()


def kwonly(a, /, b, *args, c, d=4, **kw):
    return (a, b, args, c, d, sorted(kw))


def annotated(x: int, y: "str" = "s") -> "list[int]":
    return [x, len(y)]


def lambdas_from_comprehension(k):
    """Closures over a comprehension's variable (inlined from 3.12)."""
    return [lambda: i * k for i in range(3)]


adder = lambda a: lambda b: a + b  # noqa: E731


class WithLambda:
    twice = staticmethod(lambda x: x * 2)
    spread = staticmethod(lambda x,
                          y=(1, 2): (x,
                                     y))

COUNTER = 0


def bump_global():
    global COUNTER
    COUNTER += 1
    return COUNTER


def module_calls(a, b):
    # 3.11+ compile a call of an attribute of a module-level import
    # differently: the rebuilt source must bind these names the same way.
    return math.hypot(a, b) + len(os_path.join("x", "y")) + \
        functools.reduce(int.__add__, [a, b])


def _tag(*args, **kw):
    def d(f):
        f.tagged = args
        return f
    return d


def with_default_lambda(x, key=lambda v: v * 2):
    # The default's lambda belongs to the module scope, not this one.
    return key(x)


@_tag(lambda z: z + 1,
      "multi-line")
def under_multiline_decorator(x):
    return x + 1


def def_under_elif(flag):
    if flag == 1:
        return None
    elif flag == 2:
        def inner():
            return "elif"
        return inner
    return None
