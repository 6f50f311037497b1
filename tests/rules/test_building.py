"""RULES 5.3 (building, one stack per turn, spreading leftovers), 4 (carry-over) and Yucata's stack rules."""

from __future__ import annotations

import pytest

import torres_rules as tr

from .helpers import end_turn, knights, last_turn, of_type, pos, position

# Castle X = B2 (1), C2 (2) (area 2); castle Y = E2 (1). D2 touches both. Fillers A8, D8, H8, H5.
BUILD = {"B2": 1, "C2": 2, "E2": 1, "A8": 1, "D8": 1, "H8": 1, "H5": 1}
BUILD_SQUARES = {
    "B2",  # top: 1 < area 2
    "B1", "A2", "B3", "C1", "C3",  # ground next to X (D2 touches Y too)
    "E1", "F2", "E3",  # ground next to Y
    "A7", "B8", "C8", "E8", "D7", "G8", "H7", "H4", "H6", "G5",  # ground next to the fillers
}


def build_state(**fields) -> tr.State:
    fields.setdefault("heights", BUILD)
    fields.setdefault("knights", knights("A1", "H1"))
    fields.setdefault("king", "A8")
    return pos(**fields)


def build(state: tr.State, at: str, stack: int | None = 0) -> tr.State:
    action = {"type": "build", "at": at}
    if stack is not None:
        action["stack"] = stack
    return tr.apply(state, action)


def test_build_squares_exact():
    s = build_state()
    # 2 players, stacks 3-3-3-3: one listed stack index (one per distinct height)
    assert {(a["at"], a["stack"]) for a in of_type(s, "build")} == {(sq, 0) for sq in BUILD_SQUARES}


def test_build_never_where_a_figure_stands():
    # knights on ground squares B1 and E1, the king on top of B2 (the king always stands on a block)
    s = build_state(knights=knights("B1 A1", "E1"), king="B2")
    assert {a["at"] for a in of_type(s, "build")} == BUILD_SQUARES - {"B1", "B2", "E1"}
    with pytest.raises(tr.IllegalAction, match="figure"):
        build(s, "B2")
    with pytest.raises(tr.IllegalAction, match="figure"):
        build(s, "E1")


def test_build_on_top_stays_within_base_area():
    with pytest.raises(tr.IllegalAction, match="base area"):
        build(build_state(), "C2")
    with pytest.raises(tr.IllegalAction, match="base area"):
        build(build_state(), "E2")


def test_ground_block_grows_the_base_area_and_allows_a_higher_stack():
    s = build(build_state(), "B3")
    assert position(s)["heights"]["B3"] == 1
    assert "C2" in {a["at"] for a in of_type(s, "build")}  # area 3 now: C2 may reach 3
    s = build(s, "C2", stack=None)
    assert position(s)["heights"]["C2"] == 3


def test_castles_never_join():
    with pytest.raises(tr.IllegalAction, match="join"):
        build(build_state(), "D2")


def test_build_must_extend_a_castle():
    with pytest.raises(tr.IllegalAction, match="extend an existing castle"):
        build(build_state(), "G2")


def test_diagonal_touching_is_allowed():
    s = build(build_state(), "E3")  # Y = E2, E3
    s = build(s, "D3", stack=None)  # Y = E2, E3, D3: diagonal to X's C2 -- allowed
    assert position(s)["heights"]["D3"] == 1
    # C3 would now touch C2 (X) and D3 (Y)
    assert "C3" not in {a["at"] for a in of_type(s, "build")}
    with pytest.raises(tr.IllegalAction, match="join"):
        build(s, "C3", stack=None)


def test_build_costs_1_ap_and_takes_a_block_from_the_stack():
    s = build(build_state(), "B1")
    p = position(s)
    assert p["ap_spent"] == 1
    assert p["stacks"][0] == [2, 3, 3, 3]
    assert p["stack_chosen"] == 0
    assert p["supply"] == position(build_state())["supply"]


def test_blocks_may_go_to_several_castles_in_one_turn():
    s = build(build_state(), "B1")
    s = build(s, "F2", stack=None)
    s = build(s, "H6", stack=None)
    heights = position(s)["heights"]
    assert (heights["B1"], heights["F2"], heights["H6"]) == (1, 1, 1)


def test_one_stack_per_turn():
    s = build(build_state(), "B1", stack=1)
    assert {a["stack"] for a in of_type(s, "build")} == {1}
    with pytest.raises(tr.IllegalAction, match="one stack per turn"):
        build(s, "F2", stack=0)
    s = build(s, "F2", stack=None)  # the chosen stack is implied
    assert position(s)["stacks"][0] == [3, 1, 3, 3]


def test_first_build_must_choose_a_stack():
    with pytest.raises(tr.IllegalAction, match="stack"):
        build(build_state(), "B1", stack=None)


def test_build_lists_one_index_per_distinct_stack_height():
    # 3 players, phase 1: 3-3-2-2 -> indices 0 and 2
    s = pos(players=3, heights=BUILD, knights=knights("A1", "H1", "G1"), king="A8")
    assert {a["stack"] for a in of_type(s, "build")} == {0, 2}
    # a stack of equal height that is not listed is still accepted
    s2 = build(s, "B1", stack=3)
    assert position(s2)["stacks"][0] == [3, 3, 2, 1]


def test_at_most_the_stack_blocks_per_turn():
    s = build_state()
    for at in ("B1", "F2", "H6"):
        s = build(s, at, stack=None if at != "B1" else 0)
    p = position(s)
    assert p["stacks"][0] == [0, 3, 3, 3]
    assert p["ap_spent"] == 3
    assert of_type(s, "build") == []
    with pytest.raises(tr.IllegalAction, match="no blocks left"):
        build(s, "G5", stack=None)


def test_build_needs_an_ap():
    s = build_state(ap_spent=5)
    assert of_type(s, "build") == []
    with pytest.raises(tr.IllegalAction, match="AP"):
        build(s, "B1")


# --- spreading leftovers (5.3) ------------------------------------------------------------------------------


def four_players(**fields) -> tr.State:
    fields.setdefault("knights", knights("A1", "H1", "A8", "H8"))
    fields.setdefault("king", "D1")
    return pos(players=4, **fields)


def test_every_turn_uses_up_one_stack_even_without_building():
    s = four_players()
    assert position(s)["stacks"][0] == [2, 2, 2, 2]
    s = end_turn(s)
    assert position(s)["stacks"][0] == [3, 3, 2]
    assert position(s)["to_move"] == 1


def test_end_turn_listing_default_spread():
    assert of_type(four_players(), "end_turn") == [{"type": "end_turn", "stack": 0, "spread": [1, 1, 0]}]
    s3 = pos(players=3, knights=knights("A1", "H1", "A8"), king="D1")
    # 3-3-2-2: one entry per distinct height; stack 0 leaves 3 blocks, only 2 fit (cap 3), 1 to the supply
    assert of_type(s3, "end_turn") == [
        {"type": "end_turn", "stack": 0, "spread": [0, 1, 1]},
        {"type": "end_turn", "stack": 2, "spread": [0, 0, 1]},
    ]


@pytest.mark.parametrize("spread, stacks", [([0, 1, 1], [2, 3, 3]), ([1, 0, 1], [3, 2, 3]), ([1, 1, 0], [3, 3, 2])])
def test_player_chooses_the_spread(spread, stacks):
    s = end_turn(four_players(), spread=spread)
    assert position(s)["stacks"][0] == stacks


def test_spread_no_stack_above_3():
    with pytest.raises(tr.IllegalAction, match="above 3"):
        end_turn(four_players(), spread=[2, 0, 0])


def test_spread_must_place_as_many_as_fit():
    with pytest.raises(tr.IllegalAction, match="as many"):
        end_turn(four_players(), spread=[1, 0, 0])
    with pytest.raises(tr.IllegalAction, match="as many"):
        end_turn(four_players(), spread=[0, 0, 0])


def test_spread_no_new_stack():
    with pytest.raises(tr.IllegalAction, match="remaining stack"):
        end_turn(four_players(), spread=[1, 1, 0, 0])


def test_what_does_not_fit_goes_back_to_the_supply():
    s = pos(players=3, knights=knights("A1", "H1", "A8"), king="D1")
    before = position(s)["supply"]
    s = end_turn(s, stack=0, spread=[0, 1, 1])
    assert position(s)["stacks"][0] == [3, 3, 3]
    assert position(s)["supply"] == before + 1


def test_two_players_full_stacks_return_everything():
    s = pos(knights=knights("A1", "H1"), king="D1")
    before = position(s)["supply"]
    s = end_turn(s)
    assert position(s)["stacks"][0] == [3, 3, 3]
    assert position(s)["supply"] == before + 3


def test_partly_used_stack_leftover_is_spread():
    s = build(four_players(), "C1")  # D1's neighbour
    assert of_type(s, "end_turn") == [{"type": "end_turn", "stack": 0, "spread": [1, 0, 0]}]
    with pytest.raises(tr.IllegalAction, match="uses stack 0"):
        tr.apply(s, {"type": "end_turn", "stack": 1, "spread": [1, 0, 0]})
    s = tr.apply(s, {"type": "end_turn", "spread": [0, 0, 1]})
    assert position(s)["stacks"][0] == [2, 2, 3]


def test_end_turn_without_build_needs_a_stack():
    with pytest.raises(tr.IllegalAction, match="stack"):
        tr.apply(four_players(), {"type": "end_turn"})


# --- last turn of a phase: carry-over per edition (4, 5.3) --------------------------------------------------


def last_four(edition: str, **fields) -> tr.State:
    return last_turn(4, 1, edition=edition, knights=knights("A1", "H1", "A8", "H8"), king="D1", **fields)


def test_last_turn_leftover_kept_and_spread_rio_grande():
    s = last_four("rio_grande")
    assert position(s)["stacks"] == [[], [], [], [2]]
    supply = position(s)["supply"]
    s = end_turn(s)  # 2 blocks left over, kept for phase 2
    p = position(s)
    assert p["stage"] == "move_king" and p["phase"] == 2
    assert p["stacks"] == [[2, 2, 2], [2, 2, 2], [2, 2, 2], [3, 3, 2]]
    assert p["supply"] == supply - 4 * 6


def test_last_turn_leftover_returned_ravensburger():
    s = last_four("ravensburger")
    supply = position(s)["supply"]
    p = position(end_turn(s))
    assert p["stacks"] == [[2, 2, 2]] * 4
    assert p["supply"] == supply + 2 - 4 * 6


def test_carry_over_option_alone():
    s = last_four("rio_grande", options={"carry_over_blocks": False})
    assert position(end_turn(s))["stacks"][3] == [2, 2, 2]
    s = last_four("ravensburger", options={"carry_over_blocks": True})
    assert position(end_turn(s))["stacks"][3] == [3, 3, 2]


def test_carry_over_capped_at_3_excess_to_supply():
    # seat 0 kept 3 blocks from its last turn, seat 3 keeps 2 more now: 3 fit onto 2-2-2 each
    s = last_four("rio_grande", leftover=[3, 0, 0, 0])
    supply = position(s)["supply"]
    p = position(end_turn(s))
    assert p["stacks"][0] == [3, 3, 3]
    assert p["stacks"][3] == [3, 3, 2]
    assert p["leftover"] == [0, 0, 0, 0]
    assert p["supply"] == supply - 24


def test_carry_over_two_players_nothing_fits():
    s = last_turn(2, 1, knights=knights("A1", "H1"), king="D1")
    supply = position(s)["supply"]
    p = position(end_turn(s))
    assert p["stacks"] == [[3, 3, 3, 3], [3, 3, 3, 3]]
    assert p["supply"] == supply + 3 - 24


def test_carry_over_three_players():
    # phase 2 stock 3-3-2: room for 1 block; 2 kept -> 1 placed, 1 back
    s = last_turn(3, 1, knights=knights("A1", "H1", "A8"), king="D1")
    assert position(s)["stacks"] == [[], [], [3]]
    s = tr.apply(s, {"type": "build", "at": "C1", "stack": 0})  # 2 left over
    supply = position(s)["supply"]
    p = position(end_turn(s))
    assert p["stacks"][2] == [3, 3, 3]
    assert p["stacks"][0] == [3, 3, 2]
    assert p["supply"] == supply - 3 * 8 + 1


# --- Yucata: the largest stack automatically, leftovers onto the next stack ---------------------------------


def yucata(players: int, **fields) -> tr.State:
    fields.setdefault("knights", knights(*["A1", "H1", "A8", "H8"][:players]))
    fields.setdefault("king", "D1")
    return pos(players=players, edition="yucata", **fields)


def test_yucata_builds_from_the_largest_stack():
    s = yucata(3, stacks=[[2, 3, 3, 2], [3, 3, 2, 2], [3, 3, 2, 2]])
    assert {a["stack"] for a in of_type(s, "build")} == {1}
    with pytest.raises(tr.IllegalAction, match="largest"):
        build(s, "C1", stack=3)
    s = build(s, "C1", stack=None)
    assert position(s)["stacks"][0] == [2, 2, 3, 2]


def test_yucata_3_players_leftover_onto_next_stack_without_cap():
    s = yucata(3)
    s = build(s, "C1", stack=None)  # from stack 0 (3): 2 left
    assert of_type(s, "end_turn") == [{"type": "end_turn", "stack": 0, "spread": [2, 0, 0]}]
    s = end_turn(s)
    assert position(s)["stacks"][0] == [5, 2, 2]


def test_yucata_4_players_may_build_more_than_3_in_a_turn():
    s = yucata(4, round=2, stacks=[[4, 2, 2], [4, 2, 2], [4, 2, 2], [4, 2, 2]])
    for at in ("C1", "E1", "D2", "B1"):
        s = build(s, at, stack=None)
    assert position(s)["stacks"][0] == [0, 2, 2]


def test_yucata_spread_is_automatic():
    s = yucata(3)
    with pytest.raises(tr.IllegalAction, match="automatically"):
        end_turn(s, stack=0, spread=[0, 1, 1])


def test_yucata_2_players_spill_onward_capped_at_3():
    s = yucata(2, stacks=[[3, 1, 1, 3], [3, 3, 3, 3]])
    assert of_type(s, "end_turn") == [{"type": "end_turn", "stack": 0, "spread": [2, 1, 0]}]
    with pytest.raises(tr.IllegalAction, match="automatically"):
        end_turn(s, stack=0, spread=[1, 2, 0])
    supply = position(s)["supply"]
    s = end_turn(s)
    assert position(s)["stacks"][0] == [3, 2, 3]
    assert position(s)["supply"] == supply


def test_stack_choice_option_alone():
    s = pos(players=3, options={"stack_choice": "largest"}, knights=knights("A1", "H1", "A8"), king="D1")
    assert {a["stack"] for a in of_type(s, "build")} == {0}
    s = pos(players=3, edition="yucata", options={"stack_choice": "player"},
            knights=knights("A1", "H1", "A8"), king="D1")
    assert {a["stack"] for a in of_type(s, "build")} == {0, 2}
