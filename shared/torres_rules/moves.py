"""Knights on the move: placement (5.1), steps and gate moves (5.2), and the knight cards of section 9.

Each rule is a generator of destinations; `apply` checks membership and, when the move is not there, asks the
matching `why_not_*` function for the sentence of the rule that forbids it.
"""

from __future__ import annotations

from .board import DIAGONAL_NEIGHBOURS, JUMPS, NEIGHBOURS, SQUARE_NAMES
from .castles import NO_CASTLE
from .codes import CODES, MOVE_KNIGHT
from .editions import KNIGHTS_PER_PLAYER
from .state import NO_FIGURE, State


def _name(sq: int) -> str:
    return SQUARE_NAMES[sq]


def reserve(state: State, seat: int) -> int:
    """Knights of the seat not yet on the board."""
    return KNIGHTS_PER_PLAYER - len(state.knight_squares(seat))


def placement_squares(state: State, seat: int, without: int = NO_FIGURE) -> list[int]:
    """Free squares orthogonally next to one of the seat's knights, at the same or a lower level (5.1).
    `without`: a knight lifted off the board (card 9.9) that neither counts as a neighbour nor blocks."""
    h = state.heights
    knights = state.knights
    king = state.king
    found = [False] * 64  # a mask, not a set: plain C in the compiled build, and no hashing in either
    if king != NO_FIGURE:  # never a target (and never -1, which would index square 63)
        found[king] = True
    if without != NO_FIGURE:
        found[without] = True
    out: list[int] = []
    for k in state.knight_squares(seat):
        if k == without:
            continue
        level = h[k]
        for n in NEIGHBOURS[k]:
            if h[n] <= level and (knights[n] == NO_FIGURE or n == without) and not found[n]:
                found[n] = True
                out.append(n)
    out.sort()
    return out


def knight_move_codes(state: State, squares: tuple[int, ...], out: list[object]) -> None:
    """5.2: a knight moves for 1 AP onto a free square of its reach (steps and gate moves together, figures aside:
    `Castles.reach`). Appends the move_knight codes (from codes.CODES) of the knights on `squares` to `out`: this
    is the generator's hottest loop, where a list per knight would be a measurable share of a game's instructions
    (docs/performance.md, "Rules engine")."""
    knights, king, castles = state.knights, state.king, state.castles
    for frm in squares:
        base = MOVE_KNIGHT + frm * 64
        for to in castles.reach(frm):
            if knights[to] == NO_FIGURE and to != king:
                out.append(CODES[base + to])


def may_move(state: State, frm: int, to: int) -> bool:
    """One move of `knight_move_codes`, without listing them all (for `apply`)."""
    return to in state.castles.reach(frm) and state.is_free(to)


def move_knight(state: State, frm: int, to: int) -> None:
    """Private to the engine: the knight on `frm` onto `to` of a fresh copy (a move, or a knight card's)."""
    state.put_knight(state.knights[frm], frm, to)


def why_not_move(state: State, frm: int, to: int) -> str:
    h = state.heights
    if not state.is_free(to):
        return f"{_name(to)} is occupied: a knight moves only onto a free square and never passes over figures"
    if to in NEIGHBOURS[frm]:
        return (
            f"knight may climb at most 1 level per step: {_name(frm)} is level {h[frm]}, {_name(to)} is level "
            f"{h[to]} (and no gate move leads there)"
        )
    return (
        f"{_name(frm)} to {_name(to)} is neither a step to a neighbour nor a gate move: a gate move enters a "
        f"castle next to the knight higher than its level {h[frm]} and leaves onto a square no higher"
    )


# --- cards that move knights (section 9) ---------------------------------------------------------------------


def climb_two_squares(state: State, square: int) -> list[int]:
    """Card 1: an orthogonally adjacent free square exactly 2 levels higher."""
    h, knights, king = state.heights, state.knights, state.king
    target = h[square] + 2
    return [n for n in NEIGHBOURS[square] if h[n] == target and knights[n] == NO_FIGURE and n != king]


def diagonal_squares(state: State, square: int) -> list[int]:
    """Card 5: one square diagonally, climbing at most 1 level."""
    h, knights, king = state.heights, state.knights, state.king
    limit = h[square] + 1
    return [n for n in DIAGONAL_NEIGHBOURS[square] if h[n] <= limit and knights[n] == NO_FIGURE and n != king]


def jump_squares(state: State, square: int) -> list[int]:
    """Card 10: over one directly adjacent figure in a straight line onto the free square beyond, landing at
    most 1 level higher. Over any figure, or a foreign knight only (option jump_over)."""
    seat = state.knights[square]
    limit = state.heights[square] + 1
    foreign_only = state.options.jump_over == "foreign_knight"
    out = []
    for over, land in JUMPS[square]:
        owner = state.knights[over]
        if foreign_only:
            if owner in (NO_FIGURE, seat):
                continue
        elif owner == NO_FIGURE and state.king != over:
            continue
        if state.heights[land] <= limit and state.is_free(land):
            out.append(land)
    return sorted(out)


def castle_gate_squares(state: State, square: int) -> list[int]:
    """Card 4: into an adjacent castle of any height and out through any gate onto a free square (not the
    knight's own) next to another square of that castle, at any level."""
    castles = state.castles
    knights, king = state.knights, state.king
    out: set[int] = set()
    for c in {castles.of[t] for t in NEIGHBOURS[square]} - {NO_CASTLE}:
        for x in castles.members[c]:
            out.update(NEIGHBOURS[x])
    out.discard(square)
    return sorted(e for e in out if knights[e] == NO_FIGURE and e != king)


def reposition_squares(state: State, square: int) -> list[int]:
    """Card 9: lift the knight and place it again by 5.1, next to another of the player's knights."""
    return placement_squares(state, state.knights[square], without=square)
