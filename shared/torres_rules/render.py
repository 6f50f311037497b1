"""A plain-text picture of a position, for terminals and logs (like python-chess's `str(board)`)."""

from __future__ import annotations

from typing import Any, Final

from .board import SQUARE_NAMES
from .state import NO_FIGURE, State

SEAT_MARKS: Final = "abcd"


def board_text(state: State | dict[str, Any]) -> str:
    """The board: each square shows its height ('.' for ground) and its figure (a-d: knights of seats 0-3,
    K: the king). Takes a State, a position JSON or a view (a remote client has only the latter)."""
    if isinstance(state, State):
        heights, knights, king = state.heights, state.knights, state.king
    else:
        heights = tuple(state["heights"].get(name, 0) for name in SQUARE_NAMES)
        knights = tuple(state["knights"].get(name, NO_FIGURE) for name in SQUARE_NAMES)
        king = SQUARE_NAMES.index(state["king"]) if state.get("king") else NO_FIGURE
    lines = ["     " + "   ".join("ABCDEFGH")]
    for y in range(8):
        cells = []
        for x in range(8):
            sq = 8 * y + x
            h = heights[sq]
            figure = "K" if king == sq else (SEAT_MARKS[knights[sq]] if knights[sq] != NO_FIGURE else " ")
            cells.append(f"{h if h else '.'}{figure}")
        lines.append(f"{y + 1:>2}   " + "  ".join(cells))
    return "\n".join(lines)


def status_text(state: State | dict[str, Any]) -> str:
    """Phase, round, scores, stocks and AP in a few lines (from a State, a position JSON or a view)."""
    p = state.to_position() if isinstance(state, State) else state
    hand_sizes = p["hand_sizes"] if "hand_sizes" in p else [len(h) for h in p["hands"]]
    lines = [
        f"phase {p['phase']}  round {p['round']}  stage {p['stage']}  start player {p['start_player']}"
        + (f"  master card {p['master_card']}" if p.get("master_card") else ""),
    ]
    for seat in range(p["players"]):
        mark = ">" if seat == p["to_move"] else " "
        knights = list(p["knights"].values()).count(seat)
        lines.append(
            f"{mark} seat {seat} ({SEAT_MARKS[seat]}): score {p['scores'][seat]:>3}  stacks {p['stacks'][seat]}"
            f"  knights on board {knights}/6  cards {hand_sizes[seat]}"
        )
    if p["stage"] in ("turn", "keep_card"):
        lines.append(f"AP left {p['ap'] - p['ap_spent']} of {p['ap']}  supply {p['supply']}  king on {p['king']}")
    return "\n".join(lines)


def action_text(action: dict[str, Any]) -> str:
    """A short human form of a wire action, e.g. "move_knight D4-D5" or "end_turn stack 1 spread [1, 0]"."""
    parts = [action["type"]]
    if "card" in action:
        parts.append(action["card"])
    if "from" in action:
        parts.append(f"{action['from']}-{action['to']}")
    elif "to" in action:
        parts.append(action["to"] or "(stay)")
    if "at" in action:
        parts.append(action["at"])
    if "stack" in action:
        parts.append(f"stack {action['stack']}")
    if action.get("spread"):
        parts.append(f"spread {action['spread']}")
    if "rest" in action:
        parts.append(f"rest {action['rest']} {action['order']}")
    return " ".join(parts)
