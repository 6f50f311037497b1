"""The queries for search code (torres_rules.search) agree with the scoring rules they shortcut, on every
position of random games in every edition and mode."""

from __future__ import annotations

import random

import pytest

import torres_rules as tr
from torres_rules.scoring import castle_points, king_bonus
from torres_rules.search import board_points, knight_counts


@pytest.mark.parametrize("edition", tr.EDITIONS)
@pytest.mark.parametrize("master", [False, True])
def test_board_points_and_knight_counts_match_the_scoring_rules(edition: str, master: bool) -> None:
    for seed in range(4):
        players = 2 + seed % 3
        rng = random.Random(seed)
        state = tr.new_game(players, seed=seed, edition=edition, master=master)
        while not tr.is_over(state):
            if state.stage != "setup":
                expected = [castle_points(state, s) + king_bonus(state, s, state.phase) for s in range(players)]
                assert board_points(state) == expected
                on_board, ground = knight_counts(state)
                assert on_board == [state.knights.count(s) for s in range(players)]
                assert ground == [sum(1 for sq, k in enumerate(state.knights) if k == s and not state.heights[sq])
                                  for s in range(players)]
            state = tr.apply(state, rng.choice(tr.legal_actions(state)))
