"""Scoring: the track and its collision rule (5.6, 8), castle scoring and the king bonus (6), master cards (11)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final

from .board import EDGE_SQUARES, LONG_DIAGONALS, column, in_one_line, is_connected, row
from .castles import NO_CASTLE
from .editions import KING_BONUS, PHASES
from .state import State


def turn_order(state: State) -> Iterator[int]:
    """Seats from the start player on, in seat order ("clockwise")."""
    return ((state.start_player + i) % state.players for i in range(state.players))


def award(scores: list[int], seat: int, points: int) -> None:
    """Add points, then the collision rule (8): a player landing on another's positive score moves on to the
    next score nobody has."""
    if points <= 0:
        return
    score = scores[seat] + points
    taken = {s for i, s in enumerate(scores) if i != seat and s > 0}
    while score in taken:
        score += 1
    scores[seat] = score


def advance(scores: list[int], seat: int) -> None:
    """One AP on the track (5.6 [ruling]): the next square, skipping squares other players occupy (> 0)."""
    award(scores, seat, 1)


def castle_levels(state: State, seat: int) -> dict[int, int]:
    """Castle index -> the highest level of the seat's knights in it, for each castle it stands in (6.1)."""
    castles = state.castles
    best: dict[int, int] = {}
    heights = state.heights
    for sq, owner in enumerate(state.knights):
        if owner == seat:
            c = castles.of[sq]
            if c != NO_CASTLE and heights[sq] > best.get(c, 0):
                best[c] = heights[sq]
    return best


def castle_points(state: State, seat: int) -> int:
    """Base area x the highest level of the seat's knights, once per castle it stands in (6.1)."""
    areas = state.castles.areas
    return sum(areas[c] * level for c, level in castle_levels(state, seat).items())


def king_bonus(state: State, seat: int, phase: int) -> int:
    """5 / 10 / 15 for a knight at exactly level 1 / 2 / 3 of the king's castle after phase 1 / 2 / 3 (6.2)."""
    castles = state.castles
    king_castle = castles.of[state.king]
    for sq, owner in enumerate(state.knights):
        if owner == seat and castles.of[sq] == king_castle and state.heights[sq] == phase:
            return KING_BONUS[phase - 1]
    return 0


def phase_points(state: State) -> tuple[list[int], list[int], list[int]]:
    """What each rule pays each seat at the end of `state.phase`, by seat, before the collision rule: castles
    (6.1), the king bonus (6.2), the master card (11; zeros without one)."""
    seats = range(state.players)
    castle = [castle_points(state, seat) for seat in seats]
    king = [king_bonus(state, seat, state.phase) for seat in seats]
    master = ([0] * state.players if state.master_card is None
              else master_points(state, state.master_card, state.phase))
    return castle, king, master


def phase_scoring(state: State) -> list[int]:
    """The end-of-phase scoring: castles player by player, then the king bonus, then the master card, each award
    followed by the collision rule. `explain.scoring_breakdown` shows the same `phase_points` and these scores."""
    scores = list(state.scores)
    for points in phase_points(state):
        for seat in turn_order(state):
            award(scores, seat, points[seat])
    return scores


# --- master cards (section 11) ---------------------------------------------------------------------------------

_PER_PHASE: Final[tuple[int, ...]] = (2, 5, 10)


def master_points(state: State, card: str, phase: int) -> list[int]:
    """Points each seat earns from the master card at the end of `phase` (most cards pay only after phase 3)."""
    knights = [state.knight_squares(seat) for seat in range(state.players)]
    final = phase == PHASES
    if card in ("edge", "diagonals"):
        squares = EDGE_SQUARES if card == "edge" else LONG_DIAGONALS
        counts = [sum(1 for sq in ks if sq in squares) for ks in knights]
        points = [n * _PER_PHASE[phase - 1] for n in counts]
        most = max(counts)
        if most > 0 and counts.count(most) == 1:
            points[counts.index(most)] += _PER_PHASE[phase - 1]
        return points
    if card == "castle_count":
        wanted = 3 + phase  # exactly 4 / 5 / 6 castles at the end of phase 1 / 2 / 3
        pay = (5, 15, 30)[phase - 1]
        return [pay if _castle_count(state, ks) == wanted else 0 for ks in knights]
    if not final:
        return [0] * state.players
    rule, pay = _FINAL_CARDS[card]
    return [pay if ks and rule(state, ks) else 0 for ks in knights]


def _castle_count(state: State, squares: tuple[int, ...]) -> int | None:
    """Distinct castles holding the knights; None if one stands on the ground ([ruling])."""
    castles = {state.castles.of[sq] for sq in squares}
    return None if NO_CASTLE in castles else len(castles)


def _levels(state: State, squares: tuple[int, ...]) -> list[int]:
    return [state.heights[sq] for sq in squares]


def _different_levels(state: State, squares: tuple[int, ...]) -> bool:
    levels = _levels(state, squares)
    return len(set(levels)) == len(levels)


def _same_level(state: State, squares: tuple[int, ...]) -> bool:
    return len(set(_levels(state, squares))) == 1


def _one_line(state: State, squares: tuple[int, ...]) -> bool:
    return in_one_line(squares)


def _square(state: State, squares: tuple[int, ...]) -> bool:
    """Four knights at the corners of an axis-parallel square of any size ([ruling])."""
    occupied = set(squares)
    for a in squares:
        for b in squares:
            size = column(b) - column(a)
            if size > 0 and row(b) == row(a):
                below = row(a) + size
                if below < 8 and a + 8 * size in occupied and b + 8 * size in occupied:
                    return True
    return False


def _together(state: State, squares: tuple[int, ...]) -> bool:
    return is_connected(set(squares))


_FINAL_CARDS: Final = {
    "different_levels": (_different_levels, 40),
    "same_level": (_same_level, 50),
    "one_line": (_one_line, 50),
    "square": (_square, 50),
    "together": (_together, 40),
}
