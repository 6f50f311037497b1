"""RULES 5.6 (advancing on the score track) and 8 (the collision rule after every award)."""

from __future__ import annotations

import pytest

import torres_rules as tr

from .helpers import end_turn, knights, last_turn, pos, position


def advance(players: int, scores: list[int], to_move: int = 0) -> list[int]:
    ks = knights(*["A1", "H1", "A8", "H8"][:players])
    s = pos(players=players, scores=scores, to_move=to_move, knights=ks, king="D1")
    s = tr.apply(s, {"type": "advance_track"})
    assert position(s)["ap_spent"] == 1
    return tr.scores(s)


def test_advance_one_step_costs_1_ap():
    assert advance(2, [0, 0]) == [1, 0]
    assert advance(2, [7, 3]) == [8, 3]


def test_advance_skips_an_occupied_square():
    assert advance(2, [4, 5]) == [6, 5]


def test_marker_right_behind_a_line_gains_several_points():
    assert advance(3, [0, 1, 2]) == [3, 1, 2]
    assert advance(4, [4, 5, 6, 7]) == [8, 5, 6, 7]


def test_only_the_next_square_counts_not_farther_ones():
    assert advance(3, [4, 6, 0]) == [5, 6, 0]


def test_score_zero_is_not_occupied():
    assert advance(3, [0, 0, 0], to_move=1) == [0, 1, 0]


def test_advance_as_often_as_ap_allow():
    s = pos(knights=knights("A1", "H1"), king="D1")
    for _ in range(5):
        s = tr.apply(s, {"type": "advance_track"})
    assert tr.scores(s) == [5, 0]
    assert not any(a["type"] == "advance_track" for a in tr.legal_actions(s))
    with pytest.raises(tr.IllegalAction, match="AP"):
        tr.apply(s, {"type": "advance_track"})


# --- collisions in the phase scoring (8) --------------------------------------------------------------------


def test_equal_castle_points_the_later_player_moves_on():
    # each has one level-1 knight on a single-block castle: 1 point each; seat 0 starts
    s = end_turn(last_turn(2, 1, knights=knights("C3", "F3"), king="D1"))
    assert tr.scores(s) == [1, 2]


def test_collision_order_follows_the_start_player():
    s = end_turn(last_turn(2, 1, start_player=1, knights=knights("C3", "F3"), king="D1"))
    assert tr.scores(s) == [2, 1]


def test_collision_rule_applies_after_all_of_a_players_castles():
    # seat 0 earns 1 + 1 + 1 = 3 in one award; seat 1 already has 2 (a step-by-step award would end on 4)
    s = end_turn(last_turn(2, 1, scores=[0, 2], knights=knights("C3 F3 H4", "A8"), king="D1"))
    assert tr.scores(s) == [3, 2]


def test_collision_with_an_existing_score():
    s = end_turn(last_turn(3, 1, scores=[0, 1, 0], knights=knights("C3", "A8", "H8"), king="D1"))
    assert tr.scores(s) == [2, 1, 0]
