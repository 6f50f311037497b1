"""Queries for search code (the AI bots), compiled with the rest of the engine: what a bot's evaluation asks of
every child state it looks at, answered from the State's own cached castles instead of re-derived in
interpreted bot code. Internal to the project, not part of docs/rules-contract.md's wire API."""

from __future__ import annotations

from .castles import NO_CASTLE
from .editions import KING_BONUS, PHASES
from .state import NO_FIGURE, State


def board_points(state: State) -> list[int]:
    """Per seat: castle points plus the current phase's king bonus, as if the phase were scored now (RULES 6),
    before the collision rule -- what `scoring.castle_points` + `scoring.king_bonus` pay, in one pass."""
    castles = state.castles
    of, areas, heights, knights = castles.of, castles.areas, state.heights, state.knights
    players = state.players
    count = len(areas)
    best = [0] * (players * count)  # highest level of each seat's knights in each castle
    for sq in range(64):
        owner = knights[sq]
        if owner != NO_FIGURE:
            c = of[sq]
            if c != NO_CASTLE and heights[sq] > best[owner * count + c]:
                best[owner * count + c] = heights[sq]
    points = [0] * players
    for seat in range(players):
        total = 0
        for c in range(count):
            total += areas[c] * best[seat * count + c]
        points[seat] = total
    king, phase = state.king, state.phase
    if king != NO_FIGURE and of[king] != NO_CASTLE and phase <= PHASES:
        king_castle = of[king]
        paid = [False] * players
        for sq in castles.members[king_castle]:
            owner = knights[sq]
            if owner != NO_FIGURE and heights[sq] == phase and not paid[owner]:
                paid[owner] = True
                points[owner] += KING_BONUS[phase - 1]
    return points


def knight_counts(state: State) -> tuple[list[int], list[int]]:
    """Per seat: (knights on the board, of them on the ground at level 0)."""
    players = state.players
    on_board = [0] * players
    ground = [0] * players
    heights, knights = state.heights, state.knights
    for sq in range(64):
        owner = knights[sq]
        if owner != NO_FIGURE:
            on_board[owner] += 1
            if heights[sq] == 0:
                ground[owner] += 1
    return on_board, ground
