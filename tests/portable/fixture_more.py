"""More shapes for the portable matrix (matrix.py): defs under compound
statements, multi-line headers and decorators, tabs, column-0 strings,
lambdas in calls and class bodies, walrus, yield from, async
comprehensions, non-ASCII text before a lambda. 3.9 syntax."""
import contextlib

try:
    def in_try(x):
        return x + 1
except Exception:
    pass
with contextlib.suppress(Exception):
    def in_with(x):
        return x + 2
for _i in range(1):
    def in_for(x):
        return x + 3


def deco_args(a,
              b=2):
    def d(f):
        f.tag = (a, b)
        return f
    return d


@deco_args(
    1,
    b=3)
def multi_deco(x):
    return x + 5


def header_cont(a, \
                b=1):  # noqa: E502
    return a + b


def tabs(x):
	if x:  # noqa: E101,W191
		return x * 2  # noqa: E101,W191
	return 0  # noqa: E101,W191


def doc_col0(x):
    s = """
column 0
"""
    return s + str(x)


class Meth:
    def m(self):
        def inner():
            return __class__.__name__
        return inner


def class_lambda():
    k = 7

    class C:
        g = staticmethod(lambda: k)
    return C.g


pairs = list(map(lambda x: (x,
                            x * 2), [1]))
multi = lambda x: (  # noqa: E731
    x + 10)


def agen_comp():
    async def inner(n):
        return [x async for x in agen(n)]
    return inner


async def agen(n):
    for i in range(n):
        yield i


def yf():
    yield from range(2)
    return "end"


def walrus(xs):
    return [y for x in xs if (y := x * 2) > 2]


def raise_from():
    try:
        1 / 0
    except ZeroDivisionError as e:
        raise ValueError("x") from e


é = 1; uni = lambda: "ü" + str(é)  # noqa: E702,E731
