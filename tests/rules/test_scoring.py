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


# --- castle scoring rules and the king bonus -----------------------------------------------------------------
# Each row: players, phase, heights (None: the default board), each seat's knights, the king's square, and the
# scores right after that phase.


@pytest.mark.parametrize(
    "players, phase, heights, at, king, expected",
    [
        pytest.param(2, 1, None, ("B1", "A8"), "D1", [0, 0], id="a knight on the ground scores nothing"),
        # knights at levels 4, 3 and 1 in one castle of base 4: 16 (not 16 + 12 + 4); king elsewhere
        pytest.param(2, 1, board(F1=4, G1=3, H1=1, H2=1), ("F1 G1 H1", "A8"), "D1", [16, 0],
                     id="a castle pays each player once at the highest level"),
        pytest.param(2, 1, board(F1=4, G1=3, H1=1, H2=1), ("G1", "F1"), "D1", [12, 16],
                     id="players in one castle do not affect each other"),
        # three single-block foundations at level 1: 1 + 1 + 1
        pytest.param(2, 1, None, ("C3 F3 H4", "A8"), "D1", [3, 0], id="every castle with a knight pays"),
        pytest.param(3, 2, board(F1=4, G1=3, H1=1, H2=1), ("F1", "G1", "C3"), "D1", [16, 12, 1],
                     id="scoring in a 3-player game"),
        pytest.param(4, 3, board(F1=4, G1=3, H1=1, H2=1), ("F1", "G1", "C3", "H1"), "D1", [16, 12, 1, 4],
                     id="scoring in a 4-player game"),
        # two knights at level 1 in the king's castle: 1 x 4 + 5 (not + 10)
        pytest.param(2, 1, board(F1=1, G1=1, H1=2, H2=1), ("F1 G1", "A8"), "H1", [9, 0],
                     id="king bonus once per player"),
        # knights at levels 3 and 1 in the king's castle, none at 2 -> castle only in phase 2; the level-1 knight
        # earns 5 in phase 1, the level-3 knight 15 in phase 3
        pytest.param(2, 2, board(F1=3, G1=1, H1=1, H2=1), ("F1 H1", "A8"), "G1", [12, 0],
                     id="king bonus needs exactly the phase level (phase 2: none)"),
        pytest.param(2, 1, board(F1=3, G1=1, H1=1, H2=1), ("F1 H1", "A8"), "G1", [17, 0],
                     id="king bonus needs exactly the phase level (phase 1)"),
        pytest.param(2, 3, board(F1=3, G1=1, H1=1, H2=1), ("F1 H1", "A8"), "G1", [27, 0],
                     id="king bonus needs exactly the phase level (phase 3)"),
        # a level-1 knight in another castle: castle points only
        pytest.param(2, 1, None, ("C3", "A8"), "D1", [1, 0], id="king bonus only in the king's castle"),
        # the king on top (level 3), the knight at level 2: phase 2 bonus
        pytest.param(2, 2, board(F1=2, G1=3, H1=1, H2=1), ("F1", "A8"), "G1", [18, 0],
                     id="king bonus whatever the king's level"),
        # both at level 1 in the king's castle: castle 4 each (seat 1 collides: 4 -> 5), then +5 each: 9 and 10
        pytest.param(2, 1, board(F1=1, G1=1, H1=2, H2=1), ("F1", "G1"), "H1", [9, 10],
                     id="king bonus for several players"),
    ],
)
def test_castle_scoring_and_king_bonus(players, phase, heights, at, king, expected):
    fields = {} if heights is None else {"heights": heights}
    assert scored(players, phase, knights=knights(*at), king=king, **fields) == expected
