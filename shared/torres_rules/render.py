"""A plain-text picture of a position, for terminals and logs (like python-chess's `str(board)`)."""

from __future__ import annotations

from .board import SQUARE_NAMES
from .state import NO_FIGURE, State

SEAT_MARKS = "abcd"


def board_text(state: State) -> str:
    """The board: each square shows its height ('.' for ground) and its figure (a-d: knights of seats 0-3,
    K: the king)."""
    lines = ["     " + "   ".join("ABCDEFGH")]
    for y in range(8):
        cells = []
        for x in range(8):
            sq = 8 * y + x
            h = state.heights[sq]
            figure = "K" if state.king == sq else (
                SEAT_MARKS[state.knights[sq]] if state.knights[sq] != NO_FIGURE else " ")
            cells.append(f"{h if h else '.'}{figure}")
        lines.append(f"{y + 1:>2}   " + "  ".join(cells))
    return "\n".join(lines)


def status_text(state: State) -> str:
    """Phase, round, scores, stocks and AP in a few lines."""
    lines = [
        f"phase {state.phase}  round {state.round}  stage {state.stage}  start player {state.start_player}"
        + (f"  master card {state.master_card}" if state.master_card else ""),
    ]
    for seat in range(state.players):
        mark = ">" if seat == state.to_move else " "
        knights = state.knights.count(seat)
        lines.append(
            f"{mark} seat {seat} ({SEAT_MARKS[seat]}): score {state.scores[seat]:>3}  stacks {list(state.stacks[seat])}"
            f"  knights on board {knights}/6  cards {len(state.hands[seat])}"
        )
    if state.stage in ("turn", "keep_card"):
        lines.append(f"AP left {state.ap - state.ap_spent} of {state.ap}  supply {state.supply}  "
                     f"king on {SQUARE_NAMES[state.king]}")
    return "\n".join(lines)


def action_text(action: dict) -> str:
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
