"""Jobs for the demo: `make demo` pickles scale() from here and calls it
from a directory where this module does not exist."""
import math


def _number(x):
    if not isinstance(x, (int, float)):
        raise TypeError(f"expected a number, got {type(x).__name__}")
    return x


def scale(x, factor=1):
    """Multiply x by factor."""
    return _number(x) * factor


def hypot(*sides):
    """Length of the vector with these sides."""
    return math.sqrt(sum(_number(s) ** 2 for s in sides))


def make_counter(start=0):
    """A closure: each call returns the next number."""
    count = start

    def counter(step=1):
        nonlocal count
        count += step
        return count

    return counter


counter = make_counter(10)
