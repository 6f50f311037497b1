"""Hand-made positions for the rule-by-rule tests (position JSON of docs/rules-contract.md).

Nothing here calls engine internals: expected legal sets are written by hand in the tests, and the small
geometry below (neighbours) is re-derived from docs/rules.md so that a test never asks the engine what is right.
"""

from __future__ import annotations

from typing import Any

import torres_rules as tr

FOUNDATIONS = ("D1", "C3", "F3", "H4", "A5", "C6", "F6", "E8")
SQUARES = tuple(f"{c}{r}" for r in range(1, 9) for c in "ABCDEFGH")
ROUNDS = {2: (4, 4, 4), 3: (4, 3, 3), 4: (4, 3, 3)}


def board(drop: tuple[str, ...] = (), **heights: int) -> dict[str, int]:
    """The 8 foundations (docs/rules.md section 3) at height 1, minus `drop`, plus (or overridden by) `heights`."""
    out = {sq: 1 for sq in FOUNDATIONS if sq not in drop}
    out.update(heights)
    return {sq: h for sq, h in out.items() if h}


def knights(*seats: str) -> dict[str, int]:
    """knights("B2 D1", "F6") -> {"B2": 0, "D1": 0, "F6": 1}: one string of squares per seat."""
    return {sq: seat for seat, squares in enumerate(seats) for sq in squares.split()}


def pos(**fields: Any) -> tr.State:
    """A state from position JSON; 2 players and the 8 foundations unless told otherwise."""
    fields.setdefault("players", 2)
    fields.setdefault("heights", board())
    return tr.from_position(fields)


def last_turn(players: int, phase: int, **fields: Any) -> tr.State:
    """The last turn of a phase (start player 0, the last seat to move, last round)."""
    fields.setdefault("start_player", 0)
    start = fields["start_player"]
    return pos(
        players=players,
        phase=phase,
        round=ROUNDS[players][phase - 1],
        to_move=(start - 1) % players,
        **fields,
    )


def end_turn(state: tr.State, **extra: Any) -> tr.State:
    """End the turn using stack 0 (or the turn's stack) with the default spread."""
    action: dict[str, Any] = {"type": "end_turn"}
    action.update(extra)
    if "stack" not in action and state.to_position()["stack_chosen"] is None:
        action["stack"] = 0
    return tr.apply(state, action)


def of_type(state: tr.State, kind: str, **match: Any) -> list[dict[str, Any]]:
    """The legal actions of one type whose fields equal `match`."""
    return [
        a for a in tr.legal_actions(state)
        if a["type"] == kind and all(a.get(k) == v for k, v in match.items())
    ]


def destinations(state: tr.State, frm: str) -> set[str]:
    """Squares `move_knight` may reach from `frm` (steps and gate moves)."""
    return {a["to"] for a in of_type(state, "move_knight", **{"from": frm})}


def card_uses(state: tr.State, card: str) -> set[tuple[str, ...]]:
    """The listed uses of a card as tuples of their fields (from/to, at/stack, or nothing)."""
    out = set()
    for a in of_type(state, "play_card", card=card):
        out.add(tuple(str(a[k]) for k in ("from", "to", "at", "stack") if k in a))
    return out


def squares_of(state: tr.State, kind: str) -> set[str]:
    """The "at" squares of the listed actions of one type."""
    return {a["at"] for a in of_type(state, kind)}


def neighbours(square: str) -> list[str]:
    """Orthogonal neighbours (RULES 1), re-derived here rather than taken from the engine."""
    x, y = "ABCDEFGH".index(square[0]), int(square[1]) - 1
    return [
        f"{'ABCDEFGH'[nx]}{ny + 1}"
        for nx, ny in ((x, y - 1), (x - 1, y), (x + 1, y), (x, y + 1))
        if 0 <= nx < 8 and 0 <= ny < 8
    ]


def position(state: tr.State) -> dict[str, Any]:
    return state.to_position()
