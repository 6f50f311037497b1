"""A cheap static evaluation: what each seat would score if the phase were scored now, and a little more.

Castle scoring (RULES 6) pays base area x the highest level of a player's knights, once per castle, at
the end of every phase; the king bonus pays 5/10/15 for a knight at exactly level 1/2/3 of the king's
castle. So the projection below is the seat's score plus that payout for the current board, and the
value of a position is the seat's projection minus the best opponent's (we play to win, not to score).
Positions persist between phases, so boards are weighted a little more while scorings remain; hand
cards and knights still in reserve are worth a little (future AP and future castles).

Speed matters more than finesse here (the planners call it thousands of times per decision), so it
reads the State's documented fields directly and asks the engine's `search` queries for the board.
"""

from __future__ import annotations

from dataclasses import dataclass

import torres_rules as tr
from torres_rules import search

KNIGHTS_PER_PLAYER = 6


@dataclass(frozen=True)
class Weights:
    """Tunable terms of the evaluation (all in score points)."""

    card: float = 1.5  # one card in hand: one AP or a free special move later
    reserve_knight: float = 0.5  # a knight not yet placed can still found a presence elsewhere
    future_board: float = 0.35  # extra weight of the board per scoring still to come after this one
    ground_knight: float = -0.5  # a knight at level 0 is in no castle and scores nothing


DEFAULT_WEIGHTS = Weights()


def board_points(state: tr.State) -> list[int]:
    """Per seat: castle points plus the current phase's king bonus, as if the phase were scored now.
    Asked of the engine (compiled with it, from the State's cached castles): this is the evaluation's cost."""
    return search.board_points(state)


def projections(state: tr.State, weights: Weights = DEFAULT_WEIGHTS) -> list[float]:
    """Each seat's projected worth: score, plus the board as if scored now (weighted for later scorings)."""
    scores = state.scores
    if state.stage == "over":
        return [float(s) for s in scores]
    board = board_points(state)
    scorings_after = 3 - state.phase
    board_weight = 1.0 + weights.future_board * max(0, scorings_after)
    on_board, ground = search.knight_counts(state)
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
