"""Wire-form actions made once per distinct action and handed out as shallow copies.

`legal_actions` returns a fresh dict per action, and making those dicts is most of its cost: `dict.copy` of a
small dict is one allocation and a memcpy, where building one key by key costs several times that (in the
compiled build far more than everything else `legal_actions` does). The values are strings and ints, so a
copy shares nothing a caller could change.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from .board import SQUARE_NAMES
from .names import CARD_KINDS


class WireTable:
    """The wire dicts of one card use, keyed by (row, square): `make(row, square)` builds one the first time it
    is asked for."""

    def __init__(self, make: Callable[[int, int], dict[str, Any]], rows: int) -> None:
        self.make = make
        self.made: list[dict[str, Any] | None] = [None] * (rows * 64)

    def copy(self, row: int, square: int) -> dict[str, Any]:
        key = row * 64 + square
        if key >= len(self.made):  # more rows than foreseen (a position JSON may carry more stacks)
            self.made.extend([None] * (key + 1 - len(self.made)))
        wire = self.made[key]
        if wire is None:
            wire = self.made[key] = self.make(row, square)
        return wire.copy()


def _move(frm: int, to: int) -> dict[str, Any]:
    return {"type": "move_knight", "from": SQUARE_NAMES[frm], "to": SQUARE_NAMES[to]}


def _place(_: int, at: int) -> dict[str, Any]:
    return {"type": "place_knight", "at": SQUARE_NAMES[at]}


def _build(stack: int, at: int) -> dict[str, Any]:
    return {"type": "build", "at": SQUARE_NAMES[at], "stack": stack}


def _card_move(row: int, to: int) -> dict[str, Any]:
    """row = card kind index * 64 + the square the knight or block comes from."""
    return {"type": "play_card", "card": CARD_KINDS[row // 64], "from": SQUARE_NAMES[row % 64], "to": SQUARE_NAMES[to]}


def _extra_block(_: int, at: int) -> dict[str, Any]:
    return {"type": "play_card", "card": "extra_block", "at": SQUARE_NAMES[at]}


def _block_under_knight(stack: int, at: int) -> dict[str, Any]:
    return {"type": "play_card", "card": "block_under_knight", "at": SQUARE_NAMES[at], "stack": stack}


# The actions of every turn, made at import (4 096 moves, 64 placements, 4 x 64 builds): a tuple lookup and a
# copy is the cheapest way to a fresh dict in both builds.
MOVE_KNIGHT: Final = tuple(tuple(_move(frm, to) for to in range(64)) for frm in range(64))  # [from][to]
PLACE_KNIGHT: Final = tuple(_place(0, at) for at in range(64))  # [at]
BUILD: Final = tuple(tuple(_build(stack, at) for at in range(64)) for stack in range(4))  # [stack][at]
# Card uses are rarer and many more: made on first use.
CARD_MOVE: Final = WireTable(_card_move, 64 * len(CARD_KINDS))  # row: card kind index * 64 + from
EXTRA_BLOCK: Final = WireTable(_extra_block, 1)  # row: 0
BLOCK_UNDER_KNIGHT: Final = WireTable(_block_under_knight, 4)  # row: stack index
