"""match statements (3.10+) for the portable matrix (matrix.py)."""


def matcher(v):
    match v:
        case [a, b]:
            return a + b
        case {"k": k}:
            return k
        case Point(x=0, y=y):
            return ("on y", y)
        case str() as s if s:
            return s.upper()
        case _:
            return None


class Point:
    __match_args__ = ("x", "y")

    def __init__(self, x, y):
        self.x = x
        self.y = y


match 1:
    case 1:
        def in_case(x):
            return x + 4
