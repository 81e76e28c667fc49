"""The two sides of a table. ``a`` is the first-named player (white), ``b`` the second.

>>> other("a")
'b'
"""

from typing import Literal, TypeGuard

Side = Literal["a", "b"]
SIDES: tuple[Side, Side] = ("a", "b")


def other(side: Side) -> Side:
    return "b" if side == "a" else "a"


def is_side(value: object) -> TypeGuard[Side]:
    return value in SIDES
