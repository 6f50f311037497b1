"""Board geometry: squares, neighbours and the fixed tables every rule looks up.

Squares are indices 0..63 (index = 8*y + x; column A-H is x, row 1-8 is y), named "A1".."H8" on the wire.
All tables are computed once at import so the hot paths (move and build generation) only index tuples.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

SIZE: Final = 8
SQUARES: Final = range(SIZE * SIZE)
SQUARE_NAMES: Final[tuple[str, ...]] = tuple(f"{'ABCDEFGH'[i % SIZE]}{i // SIZE + 1}" for i in SQUARES)
SQUARE_INDEX: Final[dict[str, int]] = {name: i for i, name in enumerate(SQUARE_NAMES)}


def square_name(square: int) -> str:
    return SQUARE_NAMES[square]


def parse_square(name: object) -> int | None:
    """The square index of a wire name such as "D4", or None when it names no square."""
    if not isinstance(name, str):
        return None
    return SQUARE_INDEX.get(name.upper())


def _xy(square: int) -> tuple[int, int]:
    return square % SIZE, square // SIZE


def _on_board(x: int, y: int) -> bool:
    return 0 <= x < SIZE and 0 <= y < SIZE


_ORTHOGONAL: Final = ((0, -1), (-1, 0), (1, 0), (0, 1))
_DIAGONAL: Final = ((-1, -1), (1, -1), (-1, 1), (1, 1))


def _around(square: int, steps: tuple[tuple[int, int], ...]) -> tuple[int, ...]:
    x, y = _xy(square)
    return tuple((y + dy) * SIZE + x + dx for dx, dy in steps if _on_board(x + dx, y + dy))


NEIGHBOURS: Final[tuple[tuple[int, ...], ...]] = tuple(_around(s, _ORTHOGONAL) for s in SQUARES)
"""Orthogonal neighbours, in a stable order (up, left, right, down)."""

DIAGONAL_NEIGHBOURS: Final[tuple[tuple[int, ...], ...]] = tuple(_around(s, _DIAGONAL) for s in SQUARES)


def _jumps(square: int) -> tuple[tuple[int, int], ...]:
    x, y = _xy(square)
    return tuple(
        ((y + dy) * SIZE + x + dx, (y + 2 * dy) * SIZE + x + 2 * dx)
        for dx, dy in _ORTHOGONAL
        if _on_board(x + 2 * dx, y + 2 * dy)
    )


JUMPS: Final[tuple[tuple[tuple[int, int], ...], ...]] = tuple(_jumps(s) for s in SQUARES)
"""For each square, (square jumped over, landing square) in each straight orthogonal direction."""

FOUNDATIONS: Final[tuple[int, ...]] = tuple(SQUARE_INDEX[n] for n in ("D1", "C3", "F3", "H4", "A5", "C6", "F6", "E8"))
"""The 8 marked foundation squares (docs/rules.md section 3)."""

EDGE_SQUARES: Final[frozenset[int]] = frozenset(s for s in SQUARES if _xy(s)[0] in (0, 7) or _xy(s)[1] in (0, 7))
LONG_DIAGONALS: Final[frozenset[int]] = frozenset(
    s for s in SQUARES if _xy(s)[0] == _xy(s)[1] or _xy(s)[0] + _xy(s)[1] == 7
)


def column(square: int) -> int:
    return square % SIZE


def row(square: int) -> int:
    return square // SIZE


def in_one_line(squares: Sequence[int]) -> bool:
    """True when all squares lie in one row, one column or one diagonal of the board."""
    xs = {column(s) for s in squares}
    ys = {row(s) for s in squares}
    return (
        len(xs) <= 1
        or len(ys) <= 1
        or len({column(s) - row(s) for s in squares}) == 1
        or len({column(s) + row(s) for s in squares}) == 1
    )


def pieces(squares: set[int] | frozenset[int]) -> tuple[dict[int, int], int]:
    """The orthogonally connected pieces of the squares: each square's piece, numbered from 0, and how many."""
    piece: dict[int, int] = {}
    count = 0
    for start in squares:
        if start in piece:
            continue
        piece[start] = count
        todo = [start]
        while todo:
            for n in NEIGHBOURS[todo.pop()]:
                if n in squares and n not in piece:
                    piece[n] = count
                    todo.append(n)
        count += 1
    return piece, count


def is_connected(squares: set[int] | frozenset[int]) -> bool:
    """True when the squares form one orthogonally connected group (the empty set counts as connected)."""
    return pieces(squares)[1] <= 1
