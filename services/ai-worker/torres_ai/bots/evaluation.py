"""A cheap static evaluation: what each seat would score if the phase were scored now, and a little more.

Castle scoring (RULES 6) pays base area x the highest level of a player's knights, once per castle, at
the end of every phase; the king bonus pays 5/10/15 for a knight at exactly level 1/2/3 of the king's
castle. So the projection below is the seat's score plus that payout for the current board, and the
value of a position is the seat's projection minus the best opponent's (we play to win, not to score).
Positions persist between phases, so boards are weighted a little more while scorings remain; hand
cards and knights still in reserve are worth a little (future AP and future castles).

Speed matters more than finesse here (the planners call it thousands of times per decision), so it
reads the State's documented fields directly and caches castle membership per board.
"""

from __future__ import annotations

from dataclasses import dataclass

import torres_rules as tr

NO_FIGURE = -1
KNIGHTS_PER_PLAYER = 6
KING_BONUS = (5, 10, 15)
_NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(
    tuple(
        r * 8 + c
        for r, c in ((row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1))
        if 0 <= r < 8 and 0 <= c < 8
    )
    for row in range(8)
    for col in range(8)
)


@dataclass(frozen=True)
class Weights:
    """Tunable terms of the evaluation (all in score points)."""

    card: float = 1.5  # one card in hand: one AP or a free special move later
    reserve_knight: float = 0.5  # a knight not yet placed can still found a presence elsewhere
    future_board: float = 0.35  # extra weight of the board per scoring still to come after this one
    ground_knight: float = -0.5  # a knight at level 0 is in no castle and scores nothing


DEFAULT_WEIGHTS = Weights()


class _CastleCache:
    """Castle id per square and area per castle for a board (heights tuple), computed once per board."""

    def __init__(self, size: int = 50_000) -> None:
        self._size = size
        self._items: dict[tuple[int, ...], tuple[list[int], list[int]]] = {}

    def get(self, heights: tuple[int, ...]) -> tuple[list[int], list[int]]:
        found = self._items.get(heights)
        if found is None:
            if len(self._items) >= self._size:
                self._items.clear()
            found = self._items[heights] = _castles(heights)
        return found


def _castles(heights: tuple[int, ...]) -> tuple[list[int], list[int]]:
    castle_of = [-1] * 64
    areas: list[int] = []
    for start in range(64):
        if heights[start] and castle_of[start] < 0:
            cid = len(areas)
            castle_of[start] = cid
            todo = [start]
            area = 0
            while todo:
                sq = todo.pop()
                area += 1
                for n in _NEIGHBOURS[sq]:
                    if heights[n] and castle_of[n] < 0:
                        castle_of[n] = cid
                        todo.append(n)
            areas.append(area)
    return castle_of, areas


CASTLES = _CastleCache()


def board_points(state: tr.State) -> list[int]:
    """Per seat: castle points plus the current phase's king bonus, as if the phase were scored now."""
    heights = state.heights
    castle_of, areas = CASTLES.get(heights)
    best: list[dict[int, int]] = [{} for _ in range(state.players)]
    for sq, owner in enumerate(state.knights):
        if owner != NO_FIGURE:
            cid = castle_of[sq]
            if cid >= 0:
                level = heights[sq]
                mine = best[owner]
                if mine.get(cid, 0) < level:
                    mine[cid] = level
    points = [sum(areas[cid] * level for cid, level in mine.items()) for mine in best]
    king = state.king
    phase = state.phase
    if king != NO_FIGURE and castle_of[king] >= 0 and phase <= 3:
        king_castle = castle_of[king]
        owners = {
            owner
            for sq, owner in enumerate(state.knights)
            if owner != NO_FIGURE and castle_of[sq] == king_castle and heights[sq] == phase
        }
        for owner in owners:
            points[owner] += KING_BONUS[phase - 1]
    return points


def projections(state: tr.State, weights: Weights = DEFAULT_WEIGHTS) -> list[float]:
    """Each seat's projected worth: score, plus the board as if scored now (weighted for later scorings)."""
    scores = state.scores
    if state.stage == "over":
        return [float(s) for s in scores]
    board = board_points(state)
    scorings_after = 3 - state.phase
    board_weight = 1.0 + weights.future_board * max(0, scorings_after)
    on_board = [0] * state.players
    ground = [0] * state.players
    heights = state.heights
    for sq, owner in enumerate(state.knights):
        if owner != NO_FIGURE:
            on_board[owner] += 1
            if heights[sq] == 0:
                ground[owner] += 1
    out = []
    for seat in range(state.players):
        value = scores[seat] + board_weight * board[seat]
        value += weights.card * len(state.hands[seat])
        value += weights.reserve_knight * (KNIGHTS_PER_PLAYER - on_board[seat])
        value += weights.ground_knight * ground[seat]
        out.append(value)
    return out


def evaluate(state: tr.State, seat: int, weights: Weights = DEFAULT_WEIGHTS) -> float:
    """The seat's projection minus the best opponent's: positive means ahead."""
    values = projections(state, weights)
    if state.stage == "over":
        me = values[seat]
        best_other = max(v for s, v in enumerate(values) if s != seat)
        return (1000.0 if me > best_other else -1000.0) + me - best_other
    return values[seat] - max(v for s, v in enumerate(values) if s != seat)
