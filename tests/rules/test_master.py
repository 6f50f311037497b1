"""RULES 10 and 11: the master version -- player-placed foundations, leader-first turn order, the master cards."""

from __future__ import annotations

import pytest

import torres_rules as tr

from .helpers import SQUARES, board, end_turn, knights, last_turn, pos, position, squares_of

# --- foundations (10) -----------------------------------------------------------------------------------------------


def test_master_setup_starts_with_an_empty_board():
    s = tr.new_game(2, seed=3, master=True)
    p = position(s)
    assert p["heights"] == {} and p["stage"] == "setup"
    assert squares_of(s, "place_foundation") == set(SQUARES)


def test_foundation_spacing_in_row_and_column():
    s = tr.apply(tr.new_game(2, seed=3, master=True), {"type": "place_foundation", "at": "A1"})
    # same row or column: at least two empty squares between; diagonal touching allowed in Rio Grande
    assert squares_of(s, "place_foundation") == set(SQUARES) - {"A1", "B1", "C1", "A2", "A3"}


@pytest.mark.parametrize(
    "edition, options", [("ravensburger", {}), ("rio_grande", {"master_diagonal_foundations": False})]
)
def test_foundations_may_not_touch_diagonally_in_ravensburger(edition, options):
    s = tr.new_game(2, seed=3, edition=edition, master=True, **options)
    s = tr.apply(s, {"type": "place_foundation", "at": "A1"})
    assert squares_of(s, "place_foundation") == set(SQUARES) - {"A1", "B1", "C1", "A2", "A3", "B2"}
    with pytest.raises(tr.IllegalAction, match="diagonally"):
        tr.apply(s, {"type": "place_foundation", "at": "B2"})


def test_foundation_two_empty_squares_between():
    s = tr.apply(tr.new_game(2, seed=3, master=True), {"type": "place_foundation", "at": "D1"})
    with pytest.raises(tr.IllegalAction, match="two empty squares"):
        tr.apply(s, {"type": "place_foundation", "at": "D3"})
    with pytest.raises(tr.IllegalAction, match="two empty squares"):
        tr.apply(s, {"type": "place_foundation", "at": "F1"})
    s = tr.apply(s, {"type": "place_foundation", "at": "D4"})
    s = tr.apply(s, {"type": "place_foundation", "at": "G1"})
    assert position(s)["heights"] == {"D1": 1, "D4": 1, "G1": 1}
    with pytest.raises(tr.IllegalAction):
        tr.apply(s, {"type": "place_foundation", "at": "D1"})


def test_foundations_in_turn_order_then_start_knights_and_king():
    s = tr.new_game(3, seed=3, master=True)
    placers = []
    for at in ("A1", "D1", "G1", "B4", "E4", "H4", "A7", "D7"):
        placers.append(position(s)["to_move"])
        s = tr.apply(s, {"type": "place_foundation", "at": at})
    assert placers == [0, 1, 2, 0, 1, 2, 0, 1]
    p = position(s)
    assert sum(p["heights"].values()) == 8
    assert p["supply"] == 92 - 8 - 3 * 10
    assert p["to_move"] == 0
    assert squares_of(s, "place_start_knight") == {"A1", "D1", "G1", "B4", "E4", "H4", "A7", "D7"}
    for at in ("A1", "D1", "G1"):
        s = tr.apply(s, {"type": "place_start_knight", "at": at})
    assert squares_of(s, "place_king") == {"B4", "E4", "H4", "A7", "D7"}
    s = tr.apply(s, {"type": "place_king", "at": "E4"})
    assert (position(s)["stage"], position(s)["to_move"]) == ("turn", 0)


def test_master_card_is_drawn_from_the_seed_and_public():
    cards = {position(tr.new_game(2, seed=seed, master=True))["master_card"] for seed in range(60)}
    assert cards == set(tr.MASTER_CARDS)
    for seed in range(5):
        a = position(tr.new_game(2, seed=seed, master=True))["master_card"]
        assert a == position(tr.new_game(2, seed=seed, master=True))["master_card"]
        assert tr.view(tr.new_game(2, seed=seed, master=True), 1)["master_card"] == a
    assert position(tr.new_game(2, seed=1))["master_card"] is None


# --- leader-first turn order (10) -------------------------------------------------------------------------------------

THREE = knights("A1", "H1", "A8")


def end_of_round(scores: list[int], master: bool = True) -> tr.State:
    extra = {"master_card": "edge"} if master else {}
    s = pos(players=3, master=master, round=1, to_move=2, scores=scores, knights=THREE, king="D1", **extra)
    return end_turn(s)


def test_start_player_unchanged_while_every_score_is_0():
    p = position(end_of_round([0, 0, 0]))
    assert (p["round"], p["start_player"], p["to_move"]) == (2, 0, 0)


def test_leader_starts_after_every_round():
    s = end_of_round([0, 3, 1])
    p = position(s)
    assert (p["round"], p["start_player"], p["to_move"]) == (2, 1, 1)
    # the others follow in seat order: 1, 2, 0
    s = end_turn(s)
    assert position(s)["to_move"] == 2
    s = end_turn(s)
    assert position(s)["to_move"] == 0


def test_no_leader_first_outside_the_master_version():
    p = position(end_of_round([0, 3, 1], master=False))
    assert (p["start_player"], p["to_move"]) == (0, 0)


def test_leader_starts_the_next_phase():
    s = end_turn(last_turn(3, 1, master=True, master_card="together", scores=[0, 3, 1], knights=THREE, king="D1"))
    assert position(s)["stage"] == "move_king"
    assert position(s)["to_move"] == 0  # furthest behind
    s = tr.apply(s, {"type": "move_king", "to": None})
    p = position(s)
    assert (p["phase"], p["start_player"], p["to_move"]) == (2, 1, 1)


# --- master cards (11) ----------------------------------------------------------------------------------------------

# Castle of base 4 in the top right: F1 (1), G1 (2), H1 (1), H2 (1). The king stays on D1 (nobody there).
Q4 = board(F1=1, G1=2, H1=1, H2=1)


def master_scores(card: str, phase: int, seat0: str, seat1: str, heights=None, king: str = "D1", **fields) -> list:
    s = last_turn(2, phase, master=True, master_card=card, heights=heights or board(),
                  knights=knights(seat0, seat1), king=king, **fields)
    return tr.scores(end_turn(s))


@pytest.mark.parametrize(
    "card, phase, seat0, seat1, heights, expected",
    [
        # 1 different levels: levels 1, 2, 0 -> castle 2 x 4 + 40; seat 1 has two at level 0
        ("different_levels", 3, "F1 G1 A1", "A8 H8", Q4, [48, 0]),
        ("different_levels", 3, "F1 H1 G1", "A8 H8", Q4, [8, 0]),  # F1 and H1 share level 1
        ("different_levels", 2, "F1 G1 A1", "A8 H8", Q4, [8, 0]),  # only at the final scoring
        # 2 same level: three knights at level 1 -> 1 x 4 + 50; seat 1 at levels 0 and 1 (C3: 1 point)
        ("same_level", 3, "F1 H1 H2", "A8 C3", Q4, [54, 1]),
        ("same_level", 3, "F1 G1", "A8 C3", Q4, [8, 1]),
        ("same_level", 1, "F1 H1 H2", "A8 C3", Q4, [4, 1]),
        # 3 one line: a column, a long diagonal (C3 gives 1 point), the other long diagonal (C6), a short one
        ("one_line", 3, "A1 A3 A7", "G1 H3 B6", None, [50, 0]),
        ("one_line", 3, "A1 C3 H8", "G1 H3 B6", None, [51, 0]),
        ("one_line", 3, "B7 C6 G2", "G1 H3 B6", None, [51, 0]),
        ("one_line", 3, "B1 D3 E4", "G1 H3 B6", None, [50, 0]),
        ("one_line", 3, "A1 A3 B7", "G1 H3 B6", None, [0, 0]),
        ("one_line", 2, "A1 A3 A7", "G1 H3 B6", None, [0, 0]),
        # 4 square: corners of an axis-parallel square of any size, at most once
        ("square", 3, "B2 E2 B5 E5", "G7 H8", None, [50, 0]),
        ("square", 3, "B2 E2 B6 E6", "G7 H8", None, [0, 0]),  # a 3 x 4 rectangle
        ("square", 3, "B2 C2 D2 B3 C3 D3", "G7 H8", board(drop=("C3",)), [50, 0]),  # two squares: once
        ("square", 2, "B2 E2 B5 E5", "G7 H8", None, [0, 0]),
        # 8 together: one orthogonally connected group at the end
        ("together", 3, "B7 C7 C8", "G1 G3", None, [40, 0]),
        ("together", 3, "B7 C7 D8", "G1 G3", None, [0, 0]),  # D8 only touches C7 diagonally
        ("together", 2, "B7 C7 C8", "G1 G3", None, [0, 0]),
    ],
)
def test_final_master_cards(card, phase, seat0, seat1, heights, expected):
    assert master_scores(card, phase, seat0, seat1, heights) == expected


@pytest.mark.parametrize(
    "phase, seat0, seat1, expected",
    [
        (1, "A2 A3 H6", "G8 D4", [8, 2]),  # 3 x 2 + most 2; seat 1: 1 x 2
        (2, "A2 A3 H6", "G8 D4", [20, 5]),
        (3, "A2 A3 H6", "G8 D4", [40, 10]),
        (1, "A2 A3", "G8 H7", [4, 5]),  # tie for most: no extra; seat 1 collides 4 -> 5
        (1, "B2 C4", "G8 D4", [0, 4]),  # seat 0 misses: no knight on an edge
    ],
)
def test_edge_card(phase, seat0, seat1, expected):
    assert master_scores("edge", phase, seat0, seat1) == expected


@pytest.mark.parametrize(
    "phase, seat0, seat1, expected",
    [
        (1, "A1 B2 G2", "D4 B4", [8, 2]),  # A1, B2 on A1-H8, G2 on H1-A8: 3 x 2 + most 2; seat 1: D4
        (2, "A1 B2 G2", "D4 B4", [20, 5]),
        (3, "A1 B2 G2", "D4 B4", [40, 10]),
        (1, "A1", "D4", [2, 3]),  # tie: no extra; collision
        (1, "C2 B4", "D4", [0, 4]),
    ],
)
def test_diagonals_card(phase, seat0, seat1, expected):
    assert master_scores("diagonals", phase, seat0, seat1) == expected


@pytest.mark.parametrize(
    "phase, seat0, expected",
    [
        (1, "C3 F3 H4 A5", [4 + 5, 0]),  # exactly 4 castles at the end of phase 1
        (1, "C3 F3 H4 A5 B2", [4, 0]),  # a knight on the ground breaks it
        (1, "C3 F3 H4", [3, 0]),  # only 3
        (2, "C3 F3 H4 A5", [4, 0]),  # 4 castles at phase 2: needs 5
        (2, "C3 F3 H4 A5 C6", [5 + 15, 0]),
        (3, "C3 F3 H4 A5 C6 F6", [6 + 30, 0]),
        (3, "C3 F3 H4 A5 C6", [5, 0]),
    ],
)
def test_castle_count_card(phase, seat0, expected):
    assert master_scores("castle_count", phase, seat0, "A1", king="E8") == expected


def test_castle_count_counts_castles_not_knights():
    # C3, F3, H4 and two knights in the base-4 castle (1 and 2 high): 4 castles; 1 + 1 + 1 + 2 x 4 + 5
    assert master_scores("castle_count", 1, "C3 F3 H4 F1 G1", "A1", heights=Q4, king="E8") == [16, 0]


def test_master_bonus_comes_after_the_king_bonus():
    # Phase 1, seat 1 already at 7. Seat 0: castle D4-E4 (base 2) at level 1 = 2, king bonus 5 -> 7, which
    # collides -> 8, then edge (A2) 2 + most 2 -> 12. Master bonus before the king bonus would give 2 + 4 + 5 = 11.
    heights = board(D4=1, E4=1)
    assert master_scores("edge", 1, "D4 A2", "B4", heights=heights, king="E4", scores=[0, 7]) == [12, 7]
