"""`from __future__ import annotations` (a compile flag) for matrix.py."""
from __future__ import annotations


def lazy(x: UndefinedName) -> list[int]:  # noqa: F821
    return [x]
