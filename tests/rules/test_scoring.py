"""RULES 6: castle scoring and the king bonus, driven through the engine by ending the last turn of a phase."""

from __future__ import annotations

import pytest

import torres_rules as tr

from .helpers import board, end_turn, knights, last_turn


def scored(players: int, phase: int, **fields) -> list[int]:
    """Scores right after the end of `phase` (the last turn ends without doing anything)."""
    s = end_turn(last_turn(players, phase, **fields))
    return tr.scores(s)


def four_square(a: int, b: int) -> dict[str, int]:
    """Castle of base area 4: F1 (a), G1 (b), H1 (1, the king's square), H2 (1)."""
    return board(F1=a, G1=b, H1=1, H2=1)


# --- the worked examples of RULES 6.2 -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "phase, a, b, expected",
    [
        (1, 4, 3, 16),  # base 4, knights at 4 and 3: 4 x 4, no knight at level 1
        (2, 4, 2, 26),  # 16 + 10 (a knight at exactly level 2)
        (1, 1, 2, 13),  # 5 + 2 x 4
        (2, 2, 1, 18),  # 10 + 2 x 4
        (3, 4, 3, 31),  # 16 + 15
    ],
)
def test_worked_examples_of_rules_6_2(phase, a, b, expected):
    scores = scored(2, phase, heights=four_square(a, b), knights=knights("F1 G1", "A1"), king="H1")
    assert scores == [expected, 0]


# --- the Yucata rulebook example (castle scoring 25 and 19; at phase 2 with the king bonus 35 and 19) -------

# castle 1: A2 (1), A3 (2), A4 (1) -- base 3; castle 2: C4 (3), D4 (4), C5, D5 -- base 4;
# castle 3: E3, F3, G3 -- base 3; castle 4: D1 (2), E1 (1) -- base 2; plus H4, F6, E8.
YUCATA_SCORING = board(
    drop=("C3", "A5", "C6"), A2=1, A3=2, A4=1, C4=3, D4=4, C5=1, D5=1, E3=1, G3=1, D1=2, E1=1
)
BLACK_GREEN = knights("A3 D4 E3", "A4 C4 D1")


def test_yucata_castle_scoring_example():
    # black: 2x3 (A3) + 4x4 (D4) + 1x3 (E3) = 25; green: 1x3 (A4) + 3x4 (C4) + 2x2 (D1) = 19.
    # The king stands on E1 (castle 4, nobody at level 1 there): no bonus in phase 1.
    assert scored(2, 1, heights=YUCATA_SCORING, knights=BLACK_GREEN, king="E1") == [25, 19]


def test_yucata_castle_scoring_example_with_king_bonus_in_phase_2():
    # king in castle 1: black's A3 is at level 2 -> +10; green's A4 at level 1 gets nothing.
    assert scored(2, 2, heights=YUCATA_SCORING, knights=BLACK_GREEN, king="A2") == [35, 19]


def test_yucata_example_phase_1_with_king_in_first_castle():
    # at the end of phase 1 the level-1 knight (green A4) earns the bonus instead
    assert scored(2, 1, heights=YUCATA_SCORING, knights=BLACK_GREEN, king="A2") == [25, 24]


# --- castle scoring rules -----------------------------------------------------------------------------------


def test_knight_on_the_ground_scores_nothing():
    assert scored(2, 1, knights=knights("B1", "A8"), king="D1") == [0, 0]


def test_a_castle_pays_each_player_once_at_the_highest_level():
    # knights at levels 4, 3 and 1 in one castle of base 4: 16 (not 16 + 12 + 4); king elsewhere
    heights = board(F1=4, G1=3, H1=1, H2=1)
    assert scored(2, 1, heights=heights, knights=knights("F1 G1 H1", "A8"), king="D1") == [16, 0]


def test_players_in_one_castle_do_not_affect_each_other():
    heights = board(F1=4, G1=3, H1=1, H2=1)
    assert scored(2, 1, heights=heights, knights=knights("G1", "F1"), king="D1") == [12, 16]


def test_every_castle_with_a_knight_pays():
    # three single-block foundations at level 1: 1 + 1 + 1
    assert scored(2, 1, knights=knights("C3 F3 H4", "A8"), king="D1") == [3, 0]


def test_scoring_in_3_and_4_player_games():
    heights = board(F1=4, G1=3, H1=1, H2=1)
    assert scored(3, 2, heights=heights, knights=knights("F1", "G1", "C3"), king="D1") == [16, 12, 1]
    assert scored(4, 3, heights=heights, knights=knights("F1", "G1", "C3", "H1"), king="D1") == [16, 12, 1, 4]


# --- king bonus ---------------------------------------------------------------------------------------------


def test_king_bonus_once_per_player():
    heights = board(F1=1, G1=1, H1=2, H2=1)
    # two knights at level 1 in the king's castle: 1 x 4 + 5 (not + 10)
    assert scored(2, 1, heights=heights, knights=knights("F1 G1", "A8"), king="H1") == [9, 0]


def test_king_bonus_needs_exactly_the_phase_level():
    heights = board(F1=3, G1=1, H1=1, H2=1)
    # phase 2: knights at levels 3 and 1 in the king's castle, none at 2 -> castle only
    assert scored(2, 2, heights=heights, knights=knights("F1 H1", "A8"), king="G1") == [12, 0]
    # phase 1: the level-1 knight earns 5
    assert scored(2, 1, heights=heights, knights=knights("F1 H1", "A8"), king="G1") == [17, 0]
    # phase 3: the level-3 knight earns 15
    assert scored(2, 3, heights=heights, knights=knights("F1 H1", "A8"), king="G1") == [27, 0]


def test_king_bonus_only_in_the_kings_castle():
    # a level-1 knight in another castle: castle points only
    assert scored(2, 1, knights=knights("C3", "A8"), king="D1") == [1, 0]


def test_king_bonus_whatever_the_kings_level():
    # the king on top (level 3), the knight at level 2: phase 2 bonus
    heights = board(F1=2, G1=3, H1=1, H2=1)
    assert scored(2, 2, heights=heights, knights=knights("F1", "A8"), king="G1") == [18, 0]


def test_king_bonus_for_several_players():
    heights = board(F1=1, G1=1, H1=2, H2=1)
    # both at level 1 in the king's castle: castle 4 each (seat 1 collides: 4 -> 5), then +5 each: 9 and 10
    assert scored(2, 1, heights=heights, knights=knights("F1", "G1"), king="H1") == [9, 10]
