"""RULES 5.1 (place a knight) and 5.2 (steps and gate moves), with exact destination sets."""

from __future__ import annotations

import pytest

import torres_rules as tr

from .helpers import board, destinations, knights, pos, position, squares_of

# A castle of area 4 in the top right corner: F1=1, G1=2, H1=3, G2=1 (no foundation touches it).
CORNER = board(F1=1, G1=2, H1=3, G2=1)


# --- 5.1 place a knight -------------------------------------------------------------------------------------


def test_placement_squares_are_free_neighbours_at_same_or_lower_level():
    # Seat 0: G1 (level 2) and B7 (ground). Neighbours of G1: F1 (1, king), H1 (3, higher), G2 (1).
    # Neighbours of B7: B6, A7, C7 (seat 1 knight), B8.
    s = pos(heights=CORNER, knights=knights("G1 B7", "C7"), king="F1")
    assert squares_of(s, "place_knight") == {"G2", "B6", "A7", "B8"}


def test_placement_on_same_level_is_allowed_and_higher_is_not():
    s = pos(heights=board(F1=1, G1=2, H1=2, G2=1), knights=knights("G1", "A1"), king="D1")
    assert squares_of(s, "place_knight") == {"F1", "H1", "G2"}
    with pytest.raises(tr.IllegalAction, match="same or a lower level"):
        tr.apply(pos(heights=CORNER, knights=knights("G1", "A1"), king="D1"), {"type": "place_knight", "at": "H1"})


def test_placement_not_next_to_own_knight_is_rejected():
    s = pos(knights=knights("A1", "H8"), king="D1")
    assert squares_of(s, "place_knight") == {"A2", "B1"}
    with pytest.raises(tr.IllegalAction, match="next to one of your knights"):
        tr.apply(s, {"type": "place_knight", "at": "A3"})
    # a foreign knight is no anchor
    with pytest.raises(tr.IllegalAction, match="next to one of your knights"):
        tr.apply(s, {"type": "place_knight", "at": "G8"})


def test_placing_a_knight_costs_2_ap_and_can_repeat():
    s = pos(knights=knights("A1", "H8"), king="D1")
    s = tr.apply(s, {"type": "place_knight", "at": "A2"})
    assert position(s)["ap_spent"] == 2
    assert position(s)["knights"] == {"A1": 0, "A2": 0, "H8": 1}
    s = tr.apply(s, {"type": "place_knight", "at": "A3"})
    assert position(s)["ap_spent"] == 4
    # 1 AP left: no placement listed, and apply refuses
    assert squares_of(s, "place_knight") == set()
    with pytest.raises(tr.IllegalAction, match="2 AP"):
        tr.apply(s, {"type": "place_knight", "at": "A4"})


def test_no_placement_when_all_six_knights_are_on_the_board():
    s = pos(knights=knights("A1 A2 A3 A4 B1 B2", "H8"), king="D1")
    assert squares_of(s, "place_knight") == set()
    with pytest.raises(tr.IllegalAction, match="6"):
        tr.apply(s, {"type": "place_knight", "at": "C1"})


# --- 5.2 steps ----------------------------------------------------------------------------------------------


def test_step_climbs_at_most_one_level():
    # H2 (ground): H1 is 3 higher -> no; G2 (1) and H3 (0) by step; gate moves through the corner castle
    # (all of it is higher than 0) lead onto its free ground neighbours E1, F2, G3.
    s = pos(heights=CORNER, knights=knights("H2", "A8"), king="D1")
    assert destinations(s, "H2") == {"G2", "H3", "E1", "F2", "G3"}
    with pytest.raises(tr.IllegalAction, match="at most 1 level"):
        tr.apply(s, {"type": "move_knight", "from": "H2", "to": "H1"})


def test_step_descends_any_number_of_levels():
    # H1 is level 3, nothing around is higher, so no gate move: G1 (2) and H2 (0).
    s = pos(heights=CORNER, knights=knights("H1", "A8"), king="D1")
    assert destinations(s, "H1") == {"G1", "H2"}
    s2 = tr.apply(s, {"type": "move_knight", "from": "H1", "to": "H2"})
    assert position(s2)["knights"] == {"H2": 0, "A8": 1}
    assert position(s2)["ap_spent"] == 1


def test_figures_block_steps():
    s = pos(heights=CORNER, knights=knights("H1", "H2"), king="G1")
    assert destinations(s, "H1") == set()
    with pytest.raises(tr.IllegalAction, match="occupied"):
        tr.apply(s, {"type": "move_knight", "from": "H1", "to": "H2"})
    with pytest.raises(tr.IllegalAction, match="occupied"):
        tr.apply(s, {"type": "move_knight", "from": "H1", "to": "G1"})


def test_own_knights_block_too():
    s = pos(heights=CORNER, knights=knights("H1 H2", "A8"), king="D1")
    assert destinations(s, "H1") == {"G1"}


def test_plain_foundation_knight_has_only_steps():
    s = pos(knights=knights("D1", "A8"), king="F6")
    assert destinations(s, "D1") == {"C1", "D2", "E1"}


def test_moving_a_foreign_knight_is_rejected():
    s = pos(knights=knights("D1", "A8"), king="F6")
    with pytest.raises(tr.IllegalAction, match="own knights"):
        tr.apply(s, {"type": "move_knight", "from": "A8", "to": "A7"})


def test_moves_cost_1_ap_each_until_none_left():
    s = pos(knights=knights("A1", "H8"), king="D1")
    for frm, to in (("A1", "A2"), ("A2", "A3"), ("A3", "A4"), ("A4", "B4"), ("B4", "B3")):
        s = tr.apply(s, {"type": "move_knight", "from": frm, "to": to})
    assert position(s)["ap_spent"] == 5
    assert destinations(s, "B3") == set()
    with pytest.raises(tr.IllegalAction, match="AP"):
        tr.apply(s, {"type": "move_knight", "from": "B3", "to": "B2"})
    # the turn does not end by itself
    assert position(s)["to_move"] == 0
    assert any(a["type"] == "end_turn" for a in tr.legal_actions(s))


# --- 5.2 gate moves -----------------------------------------------------------------------------------------

# Yucata's worked example, rebuilt: the knight on F6 (ground) has a higher E6 next to it. Castle Y = E5 (2),
# E6 (1), E7 (1); castle Z = G6 (2), G7 (1). Seat 1 knights block F5 and F7, the king stands on G7.
# Foundations F6 and E8 are left out (F6 is the knight's ground square, E8 would join Y).
YUCATA = board(drop=("F6", "E8"), E5=2, E6=1, E7=1, G6=2, G7=1)


def yucata_example() -> tr.State:
    return pos(heights=YUCATA, knights=knights("F6", "F5 F7"), king="G7")


def test_yucata_worked_example_exact_destinations():
    s = yucata_example()
    # step: E6 (1 higher); F5/F7 occupied; G6 is 2 levels higher.
    # gate through Y: free ground squares next to Y (E4, D5, D6, D7, E8), never F6 itself.
    # gate through Z (G6 is higher than 0): G5, H6, H7, G8 (F7 is occupied).
    assert destinations(s, "F6") == {"E6", "E4", "D5", "D6", "D7", "E8", "G5", "H6", "H7", "G8"}


def test_yucata_worked_example_d7_for_one_ap():
    s = tr.apply(yucata_example(), {"type": "move_knight", "from": "F6", "to": "D7"})
    assert position(s)["knights"]["D7"] == 0
    assert position(s)["ap_spent"] == 1


def test_yucata_worked_example_e5_takes_two_ap_via_e6():
    s = yucata_example()
    assert "E5" not in destinations(s, "F6")
    s = tr.apply(s, {"type": "move_knight", "from": "F6", "to": "E6"})
    s = tr.apply(s, {"type": "move_knight", "from": "E6", "to": "E5"})
    assert position(s)["ap_spent"] == 2


def test_yucata_worked_example_g6_is_two_levels_too_high():
    with pytest.raises(tr.IllegalAction, match="at most 1 level"):
        tr.apply(yucata_example(), {"type": "move_knight", "from": "F6", "to": "G6"})


def test_gate_move_through_long_castle_d7_to_a5():
    # "the gate between D7 and D8 takes a knight from D7 all the way to A5 for one AP"
    heights = board(drop=("E8", "A5"), D8=1, C8=1, B8=1, A8=1, A7=1, A6=1)
    s = pos(heights=heights, knights=knights("D7", "H1"), king="D1")
    # steps: D6, C7, E7 (ground), D8 (1); gate: every free ground square next to the castle.
    assert destinations(s, "D7") == {"D6", "C7", "E7", "D8", "E8", "B7", "B6", "A5"}
    s = tr.apply(s, {"type": "move_knight", "from": "D7", "to": "A5"})
    assert position(s)["ap_spent"] == 1


# A castle in row 1: F1 (1), G1 (3), H1 (2); area 3.
ROW = board(F1=1, G1=3, H1=2)


def test_gate_exit_may_be_a_lower_square_of_the_castle_itself():
    # Knight on H1 (level 2), G1 (3) is higher: enter. Exits at level <= 2 next to a higher castle square:
    # E1, F2 (next to F1), F1 (level 1 next to G1), G2 (next to G1), H2 (next to H1). Steps: G1, H2.
    s = pos(heights=ROW, knights=knights("H1", "A8"), king="D1")
    assert destinations(s, "H1") == {"E1", "F1", "F2", "G1", "G2", "H2"}
    s = tr.apply(s, {"type": "move_knight", "from": "H1", "to": "F1"})
    assert position(s)["ap_spent"] == 1


def test_gate_exit_never_higher_than_the_start():
    # Knight on F1 (level 1): H1 is a gate square at level 2 -> not reachable; G1 is 2 higher -> no step.
    s = pos(heights=ROW, knights=knights("F1", "A8"), king="D1")
    assert destinations(s, "F1") == {"E1", "F2", "G2", "H2"}
    with pytest.raises(tr.IllegalAction):
        tr.apply(s, {"type": "move_knight", "from": "F1", "to": "H1"})


def test_figures_on_the_castle_do_not_hinder_a_gate_move():
    s = pos(heights=ROW, knights=knights("F1", "G1"), king="H1")
    assert destinations(s, "F1") == {"E1", "F2", "G2", "H2"}


def test_gate_exit_must_be_free():
    s = pos(heights=ROW, knights=knights("F1", "G2"), king="D1")
    assert destinations(s, "F1") == {"E1", "F2", "H2"}
    with pytest.raises(tr.IllegalAction, match="occupied"):
        tr.apply(s, {"type": "move_knight", "from": "F1", "to": "G2"})


def test_no_gate_move_without_a_higher_neighbour():
    # Same castle shape but G1 = 2: nothing next to the knight on H1 (level 2) is higher.
    s = pos(heights=board(F1=1, G1=2, H1=2), knights=knights("H1", "A8"), king="D1")
    assert destinations(s, "H1") == {"G1", "H2"}


def test_several_gate_moves_in_one_turn_cost_1_ap_each():
    s = yucata_example()
    s = tr.apply(s, {"type": "move_knight", "from": "F6", "to": "G5"})  # through Z
    assert position(s)["ap_spent"] == 1
    # from G5 (ground) next to G6 (2): back through Z to H7
    s = tr.apply(s, {"type": "move_knight", "from": "G5", "to": "H7"})
    assert position(s)["ap_spent"] == 2
