"""RULES 14: the game ends after the third scoring; the highest score wins (section 8 leaves no tie)."""

from __future__ import annotations

import pytest

import torres_rules as tr

from .helpers import board, end_turn, knights, last_turn, position


def final(**fields) -> tr.State:
    fields.setdefault("knights", knights("A1", "H1"))
    fields.setdefault("king", "D1")
    return end_turn(last_turn(2, 3, **fields))


def test_game_ends_after_phase_3():
    s = final(scores=[10, 20])
    p = position(s)
    assert p["stage"] == "over"
    assert p["to_move"] is None
    assert tr.is_over(s)
    assert tr.legal_actions(s) == []


def test_no_action_after_the_end():
    s = final()
    for action in ({"type": "advance_track"}, {"type": "end_turn", "stack": 0}, {"type": "move_king", "to": None}):
        with pytest.raises(tr.IllegalAction, match="over"):
            tr.apply(s, action)


def test_no_king_move_after_the_third_scoring():
    assert position(final(scores=[10, 20]))["stage"] == "over"


def test_winner_is_the_highest_score():
    assert tr.winner(final(scores=[10, 20])) == 1
    assert tr.winner(final(scores=[21, 20])) == 0


def test_winner_after_the_final_scoring_changes_the_lead():
    # seat 0 is behind by 5 but scores 4 x 4 = 16 in the last scoring
    heights = board(F1=4, G1=3, H1=1, H2=1)
    s = final(heights=heights, scores=[10, 15], knights=knights("F1", "A1"), king="D1")
    assert tr.scores(s) == [26, 15]
    assert tr.winner(s) == 0


def test_final_scoring_tie_is_broken_by_the_collision_rule():
    # both reach 16: seat 1 scores second and moves on to 17
    heights = board(F1=4, G1=4, H1=1, H2=1)
    s = final(heights=heights, scores=[0, 0], knights=knights("F1", "G1"), king="D1")
    assert tr.scores(s) == [16, 17]
    assert tr.winner(s) == 1


def test_not_over_before_phase_3():
    s = end_turn(last_turn(2, 2, knights=knights("A1", "H1"), king="D1"))
    assert not tr.is_over(s)
    assert tr.winner(s) is None


def test_leftover_blocks_return_to_the_supply_at_the_end():
    s = final()
    p = position(s)
    assert p["leftover"] == [0, 0]
    assert sum(p["heights"].values()) + p["supply"] + sum(map(sum, p["stacks"])) == 92
