"""RULES 7: between phases -- new stocks, the king move by the player furthest behind, the next start player."""

from __future__ import annotations

import pytest

import torres_rules as tr

from .helpers import FOUNDATIONS, end_turn, knights, last_turn, of_type, position

THREE = knights("A1", "H1", "A8")


def after_phase(players: int = 3, phase: int = 1, **fields) -> tr.State:
    fields.setdefault("knights", THREE if players == 3 else knights("A1", "H1"))
    fields.setdefault("king", "D1")
    return end_turn(last_turn(players, phase, **fields))


def test_player_furthest_behind_decides_on_the_king():
    s = after_phase(scores=[9, 3, 6])
    p = position(s)
    assert p["stage"] == "move_king"
    assert p["to_move"] == 1


def test_tie_at_zero_goes_to_the_latest_in_turn_order():
    assert position(after_phase(scores=[0, 0, 7]))["to_move"] == 1
    assert position(after_phase(scores=[0, 7, 0]))["to_move"] == 2
    # with seat 1 starting the order is 1, 2, 0: of the tied seats 0 and 1, seat 0 comes last
    assert position(after_phase(scores=[0, 0, 7], start_player=1))["to_move"] == 0


def test_king_may_move_onto_any_free_block():
    # all 8 foundations are castles; the king stands on D1, a knight of seat 0 on C3
    s = after_phase(knights=knights("C3", "H1", "A8"))
    free = set(FOUNDATIONS) - {"D1", "C3"}
    assert {a["to"] for a in of_type(s, "move_king")} == free | {None}
    s2 = tr.apply(s, {"type": "move_king", "to": "E8"})
    assert position(s2)["king"] == "E8"
    assert position(s2)["stage"] == "turn"


def test_king_move_at_any_level():
    heights = {sq: 1 for sq in FOUNDATIONS} | {"F1": 1, "G1": 3, "H1": 2}
    s = after_phase(heights=heights, knights=knights("C3", "A1", "A8"))
    targets = {a["to"] for a in of_type(s, "move_king")}
    assert {"F1", "G1", "H1"} <= targets
    assert position(tr.apply(s, {"type": "move_king", "to": "G1"}))["king"] == "G1"


def test_king_may_stay():
    s = tr.apply(after_phase(), {"type": "move_king", "to": None})
    assert position(s)["king"] == "D1"


def test_king_not_onto_ground_or_a_figure():
    s = after_phase(knights=knights("C3", "H1", "A8"))
    with pytest.raises(tr.IllegalAction, match="free block"):
        tr.apply(s, {"type": "move_king", "to": "B2"})
    with pytest.raises(tr.IllegalAction, match="free block"):
        tr.apply(s, {"type": "move_king", "to": "C3"})


def test_king_stays_when_no_free_block():
    # 2 players; every foundation but the king's carries a knight
    s = after_phase(2, knights=knights("C3 F3 H4 A5", "C6 F6 E8"))
    assert of_type(s, "move_king") == [{"type": "move_king", "to": None}]


def test_nothing_else_before_the_king_decision():
    with pytest.raises(tr.IllegalAction, match="king"):
        tr.apply(after_phase(), {"type": "advance_track"})


@pytest.mark.parametrize("edition, starts", [("rio_grande", 1), ("yucata", 1), ("ravensburger", 0)])
def test_start_player_of_the_next_phase(edition, starts):
    s = after_phase(edition=edition, scores=[9, 3, 6])
    s = tr.apply(s, {"type": "move_king", "to": None})
    p = position(s)
    assert (p["start_player"], p["to_move"], p["phase"], p["round"]) == (starts, starts, 2, 1)


def test_king_mover_starts_option_alone():
    s = after_phase(options={"king_mover_starts": False}, scores=[9, 3, 6])
    assert position(tr.apply(s, {"type": "move_king", "to": None}))["start_player"] == 0
    s = after_phase(edition="ravensburger", options={"king_mover_starts": True}, scores=[9, 3, 6])
    assert position(tr.apply(s, {"type": "move_king", "to": None}))["start_player"] == 1


def test_new_stocks_for_phase_2_and_3():
    stocks = {2: [3, 3, 3, 3], 3: [3, 3, 2], 4: [2, 2, 2]}  # docs/rules.md section 4: phases 2 and 3 alike
    for players, stock in stocks.items():
        ks = knights(*["A1", "H1", "A8", "H8"][:players])
        s = after_phase(players, 1, knights=ks, edition="ravensburger")
        assert position(s)["stacks"] == [stock] * players
        s = after_phase(players, 2, knights=ks, edition="ravensburger")
        assert position(s)["stacks"] == [stock] * players


def test_phase_2_is_played_with_the_new_stocks_and_scores_kept():
    s = after_phase(scores=[9, 3, 6])
    s = tr.apply(s, {"type": "move_king", "to": "C3"})
    p = position(s)
    assert p["scores"] == [9, 3, 6]
    assert p["ap"] == 5 and p["ap_spent"] == 0
    # seat 2 ended phase 1 with its unused stack of 3: 1 block fits onto the new 3-3-2 (Rio Grande carry-over)
    assert p["stacks"] == [[3, 3, 2], [3, 3, 2], [3, 3, 3]]
