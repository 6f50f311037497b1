"""RULES 5.4, 5.5 and 9: buying and playing action cards, the three deck modes, and each card's legal uses."""

from __future__ import annotations

import pytest

import torres_rules as tr

from .helpers import SQUARES, board, card_uses, knights, neighbours, of_type, pos, position

# Castle M: B1 (3), B2 (1), C2 (2), B3 (3) -- base area 4. Foundation C3 is left out (it would join M).
M = board(drop=("C3",), B1=3, B2=1, C2=2, B3=3)


def with_cards(*hand: str, **fields) -> tr.State:
    """Seat 0 to move holding `hand` (2 players, Rio Grande unless told otherwise)."""
    fields.setdefault("hands", [list(hand), []])
    return pos(**fields)


def holding(card: str, fields: dict, **defaults) -> tr.State:
    """`with_cards(card)` on a section's board: its `defaults` (heights, knights, king) where `fields` says nothing."""
    return with_cards(card, **(defaults | fields))


def play(state: tr.State, card: str, **fields) -> tr.State:
    return tr.apply(state, {"type": "play_card", "card": card, **fields})


def refused(state: tr.State, card: str, match: str, *moves: tuple[str, str]) -> None:
    """Each (from, to) move of `card` is refused with a message that matches `match`."""
    for start, to in moves:
        with pytest.raises(tr.IllegalAction, match=match):
            play(state, card, **{"from": start, "to": to})


def test_playing_a_card_costs_no_ap_and_the_card_leaves_the_game():
    s = with_cards("climb_two", "jump", heights=M, knights=knights("B2", "B3"), king="D1")
    s = play(s, "climb_two", **{"from": "B2", "to": "B1"})
    p = position(s)
    assert p["ap_spent"] == 0
    assert p["hands"][0] == ["jump"]
    assert p["card_played"] is True
    assert p["knights"] == {"B1": 0, "B3": 1}


def test_a_card_not_in_hand_cannot_be_played():
    s = with_cards("jump", heights=M, knights=knights("B2", "B3"), king="D1")
    with pytest.raises(tr.IllegalAction, match="not in your hand"):
        play(s, "climb_two", **{"from": "B2", "to": "B1"})


# --- 1 climb two --------------------------------------------------------------------------------------------


def test_climb_two_exact_uses():
    # B2 (1): B1 (3) free; B3 (3) occupied; C2 (2) only 1 higher; A2 (0) lower
    s = with_cards("climb_two", heights=M, knights=knights("B2", "B3"), king="D1")
    assert card_uses(s, "climb_two") == {("B2", "B1")}


def test_climb_two_exactly_two_levels():
    s = with_cards("climb_two", heights=M, knights=knights("B2", "B3"), king="D1")
    refused(s, "climb_two", "exactly 2 levels higher", ("B2", "C2"), ("B2", "B3"))


# --- 2 block under knight -----------------------------------------------------------------------------------


def block_under_state(**fields) -> tr.State:
    # seat 0: B2 (level 1 of M, area 4: may grow), D1 (single foundation: may not), D2 (ground touching M's C2
    # and D1: may not), A2 (ground touching M only: joins it), G1 (ground touching nothing: new castle)
    return holding("block_under_knight", fields, heights=M, knights=knights("B2 D1 D2 A2 G1", "B3"), king="F6")


def test_block_under_knight_exact_uses():
    assert card_uses(block_under_state(), "block_under_knight") == {("B2", "0"), ("A2", "0"), ("G1", "0")}


def test_block_under_knight_raises_the_knight_and_takes_from_the_stack():
    s = play(block_under_state(), "block_under_knight", at="B2", stack=0)
    p = position(s)
    assert p["heights"]["B2"] == 2
    assert p["knights"]["B2"] == 0
    assert p["stacks"][0] == [2, 3, 3, 3]
    assert p["ap_spent"] == 0


def test_block_under_knight_on_ground_joins_the_one_castle_it_touches():
    s = play(block_under_state(), "block_under_knight", at="A2", stack=0)
    assert position(s)["heights"]["A2"] == 1
    # M has base area 5 now: B3 (3) may grow to 4 and 5
    assert "B3" not in {a["at"] for a in of_type(s, "build")}  # a knight stands there
    assert "B1" in {a["at"] for a in of_type(s, "build")}


def test_block_under_knight_on_ground_founds_a_new_castle():
    s = play(block_under_state(), "block_under_knight", at="G1", stack=0)
    assert position(s)["heights"]["G1"] == 1
    # a knight at level 1 of a new single-block castle
    assert "F1" in {a["at"] for a in of_type(s, "build")}


def test_block_under_knight_illegal_uses():
    s = block_under_state()
    with pytest.raises(tr.IllegalAction, match="base area"):
        play(s, "block_under_knight", at="D1", stack=0)
    with pytest.raises(tr.IllegalAction, match="join"):
        play(s, "block_under_knight", at="D2", stack=0)
    with pytest.raises(tr.IllegalAction, match="own knights"):
        play(s, "block_under_knight", at="B3", stack=0)
    with pytest.raises(tr.IllegalAction, match="stack"):
        play(s, "block_under_knight", at="B2", stack=7)


def test_block_under_knight_from_a_stack_not_chosen_this_turn():
    # seat 0 has built once from stack 0 this turn
    heights = dict(M, A2=1)  # the block built this turn
    s = block_under_state(heights=heights, stacks=[[2, 3, 3, 3], [3, 3, 3, 3]], stack_chosen=0, ap_spent=1,
                          knights=knights("B2", "B3"))
    assert card_uses(s, "block_under_knight") == {("B2", "0"), ("B2", "1")}
    s = play(s, "block_under_knight", at="B2", stack=2)
    p = position(s)
    assert p["stacks"][0] == [2, 3, 2, 3]
    assert p["stack_chosen"] == 0
    assert p["heights"]["B2"] == 2


# --- 3 extra block ------------------------------------------------------------------------------------------

DEFAULT_BUILD_SQUARES = {
    "C1", "E1", "D2", "C2", "B3", "D3", "C4", "F2", "E3", "G3", "F4", "H3", "G4", "H5",
    "A4", "B5", "A6", "C5", "B6", "D6", "C7", "F5", "E6", "G6", "F7", "D8", "F8", "E7",
}


def test_extra_block_exact_uses_are_the_build_squares():
    s = with_cards("extra_block", knights=knights("A1", "H8"), king="D1")
    assert card_uses(s, "extra_block") == {(sq,) for sq in DEFAULT_BUILD_SQUARES}


def test_extra_block_comes_from_the_supply():
    s = with_cards("extra_block", knights=knights("A1", "H8"), king="D1")
    before = position(s)
    s = play(s, "extra_block", at="C2")
    p = position(s)
    assert p["heights"]["C2"] == 1
    assert p["supply"] == before["supply"] - 1
    assert p["stacks"] == before["stacks"]
    assert p["stack_chosen"] is None and p["ap_spent"] == 0
    # the turn's own building is untouched
    s = tr.apply(s, {"type": "build", "at": "E1", "stack": 0})
    assert position(s)["stacks"][0] == [2, 3, 3, 3]


def test_extra_block_follows_the_building_rules():
    s = with_cards("extra_block", knights=knights("A1", "H8"), king="E8")
    with pytest.raises(tr.IllegalAction, match="extend an existing castle"):
        play(s, "extra_block", at="B1")
    with pytest.raises(tr.IllegalAction, match="base area"):
        play(s, "extra_block", at="D1")
    with pytest.raises(tr.IllegalAction, match="figure"):
        play(s, "extra_block", at="E8")


def test_extra_block_with_an_empty_supply():
    # 68 blocks on the board + 24 in the stocks = 92: the supply is empty
    big = {f"{c}{r}": 4 for c in "ABCDEFGH" for r in (7, 8)}
    big["H8"] = 3
    heights = board(drop=("C6", "F6", "E8"), **big)
    s = with_cards("extra_block", heights=heights, knights=knights("A1", "H1"), king="D1")
    assert position(s)["supply"] == 0
    assert card_uses(s, "extra_block") == set()
    with pytest.raises(tr.IllegalAction, match="supply"):
        play(s, "extra_block", at="C1")


# --- 4 castle gate ------------------------------------------------------------------------------------------

# Castle Q: E5 (1), F5 (3), E6 (2) -- base area 3; foundation F6 left out (it would join Q).
Q = board(drop=("F6",), E5=1, F5=3, E6=2)


def test_castle_gate_exact_uses():
    # into Q (next to E4), out onto any free square next to a square of Q, any level: not E4 itself, not F5
    s = with_cards("castle_gate", heights=Q, knights=knights("E4", "F5"), king="D1")
    expected = {"D5", "E5", "E6", "F4", "G5", "F6", "D6", "E7"}
    assert card_uses(s, "castle_gate") == {("E4", sq) for sq in expected}


def test_castle_gate_may_climb():
    s = with_cards("castle_gate", heights=Q, knights=knights("E4", "F5"), king="D1")
    s = play(s, "castle_gate", **{"from": "E4", "to": "E6"})
    assert position(s)["knights"] == {"E6": 0, "F5": 1}
    assert position(s)["ap_spent"] == 0


def test_castle_gate_illegal_uses():
    s = with_cards("castle_gate", heights=Q, knights=knights("E4", "F5"), king="D1")
    refused(s, "castle_gate", "castle_gate",
            ("E4", "F5"),  # occupied
            ("E4", "E3"),  # not next to Q
            ("E4", "E4"))


def test_castle_gate_needs_a_castle_next_to_the_knight():
    s = with_cards("castle_gate", heights=Q, knights=knights("A1", "F5"), king="D1")
    assert card_uses(s, "castle_gate") == set()


# --- 5 diagonal ---------------------------------------------------------------------------------------------


def test_diagonal_exact_uses():
    # B2 (1): A1, A3, C3 (ground); C1 occupied. D1 (1): C2 (2, another castle diagonally), E2 (0).
    s = with_cards("diagonal", heights=M, knights=knights("B2 D1", "B3 C1"), king="F6")
    assert card_uses(s, "diagonal") == {("B2", "A1"), ("B2", "A3"), ("B2", "C3"), ("D1", "C2"), ("D1", "E2")}


def test_diagonal_climbs_at_most_one_level():
    s = with_cards("diagonal", heights=M, knights=knights("A2", "H8"), king="F6")
    assert card_uses(s, "diagonal") == set()  # B1 and B3 are level 3
    with pytest.raises(tr.IllegalAction, match="climbing at most 1"):
        play(s, "diagonal", **{"from": "A2", "to": "B1"})


def test_diagonal_descends_any():
    s = with_cards("diagonal", heights=M, knights=knights("B1", "H8"), king="F6")
    assert card_uses(s, "diagonal") == {("B1", "A2"), ("B1", "C2")}
    s = play(s, "diagonal", **{"from": "B1", "to": "A2"})
    assert position(s)["knights"] == {"A2": 0, "H8": 1}


def test_diagonal_not_orthogonal():
    s = with_cards("diagonal", heights=M, knights=knights("B1", "H8"), king="F6")
    with pytest.raises(tr.IllegalAction, match="diagonal"):
        play(s, "diagonal", **{"from": "B1", "to": "A1"})


# --- 6, 7 six and seven AP ----------------------------------------------------------------------------------


def advance(state: tr.State, times: int) -> tr.State:
    for _ in range(times):
        state = tr.apply(state, {"type": "advance_track"})
    return state


@pytest.mark.parametrize("card, total", [("six_ap", 6), ("seven_ap", 7)])
def test_extra_ap_cards_raise_the_turn_total(card, total):
    s = with_cards(card, knights=knights("A1", "H8"), king="D1")
    assert card_uses(s, card) == {()}
    s = play(s, card)
    assert position(s)["ap"] == total
    s = advance(s, total)
    assert tr.scores(s) == [total, 0]
    with pytest.raises(tr.IllegalAction, match="AP"):
        tr.apply(s, {"type": "advance_track"})


@pytest.mark.parametrize("card, total", [("six_ap", 6), ("seven_ap", 7)])
def test_extra_ap_card_played_after_spending_everything(card, total):
    s = advance(with_cards(card, knights=knights("A1", "H8"), king="D1"), 5)
    s = advance(play(s, card), total - 5)
    assert position(s)["ap_spent"] == total
    assert not any(a["type"] == "advance_track" for a in tr.legal_actions(s))


def test_only_one_card_per_turn():
    s = with_cards("six_ap", "seven_ap", knights=knights("A1", "H8"), king="D1")
    s = play(s, "six_ap")
    assert of_type(s, "play_card") == []
    with pytest.raises(tr.IllegalAction, match="at most 1 card"):
        play(s, "seven_ap")
    assert position(s)["hands"][0] == ["seven_ap"]


def test_next_turn_has_5_ap_again():
    s = play(with_cards("seven_ap", knights=knights("A1", "H8"), king="D1"), "seven_ap")
    s = tr.apply(s, {"type": "end_turn", "stack": 0})
    assert (position(s)["to_move"], position(s)["ap"]) == (1, 5)


# --- 8 move a block -----------------------------------------------------------------------------------------

# Castle R: F1, G1, H1 (1 each, base 3); castle T: A8 (2), B8 (1) (base 2); plus the 8 foundations: 10 castles.
MB = board(F1=1, G1=1, H1=1, A8=2, B8=1)


def mb(**fields) -> tr.State:
    return holding("move_block", fields, heights=MB, knights=knights("A1", "H8"), king="C6")


def test_move_block_may_not_split_a_castle():
    s = mb()
    assert not any(a["from"] == "G1" for a in of_type(s, "play_card", card="move_block"))
    with pytest.raises(tr.IllegalAction, match="split"):
        play(s, "move_block", **{"from": "G1", "to": "B1"})


def test_move_block_from_the_end_of_a_castle_founds_a_new_one():
    s = play(mb(), "move_block", **{"from": "F1", "to": "B1"})
    p = position(s)
    assert "F1" not in p["heights"] and p["heights"]["B1"] == 1
    assert p["ap_spent"] == 0


def test_move_block_may_not_leave_a_stack_above_its_base_area():
    # without B8, A8 (2) would stand in a castle of base area 1
    with pytest.raises(tr.IllegalAction, match="base area"):
        play(mb(), "move_block", **{"from": "B8", "to": "B1"})


def test_move_block_onto_a_stack_at_most_its_base_area():
    with pytest.raises(tr.IllegalAction, match="base area"):
        play(mb(), "move_block", **{"from": "F1", "to": "A8"})
    s = play(mb(), "move_block", **{"from": "A8", "to": "B8"})  # the top block of A8 onto B8
    assert {k: v for k, v in position(s)["heights"].items() if k in ("A8", "B8")} == {"A8": 1, "B8": 2}


def test_move_block_may_not_join_castles():
    # E1 touches D1 and F1
    with pytest.raises(tr.IllegalAction, match="join"):
        play(mb(), "move_block", **{"from": "H1", "to": "E1"})
    # ... unless the block comes from F1 itself: E1 then extends D1 only
    s = play(mb(), "move_block", **{"from": "F1", "to": "E1"})
    assert position(s)["heights"]["E1"] == 1


def test_move_block_a_single_block_castle_vanishes_into_another():
    s = play(mb(), "move_block", **{"from": "D1", "to": "C2"})
    p = position(s)
    assert "D1" not in p["heights"] and p["heights"]["C2"] == 1
    # C2 + C3 form one castle of base area 2 now: C3 may grow to 2
    assert "C3" in {a["at"] for a in of_type(s, "build")}


def test_move_block_only_free_blocks_onto_free_squares():
    s = mb(knights=knights("F1 B1", "H8"))
    with pytest.raises(tr.IllegalAction, match="free block"):
        play(s, "move_block", **{"from": "F1", "to": "E5"})
    with pytest.raises(tr.IllegalAction, match="figure"):
        play(s, "move_block", **{"from": "H1", "to": "B1"})
    with pytest.raises(tr.IllegalAction, match="free block"):
        play(s, "move_block", **{"from": "C6", "to": "E5"})  # the king stands on C6


def test_move_block_judged_after_the_move_stack_height():
    # T = A8 (2), B8 (1). B8 onto A7 (next to A8 only): after the move T = A8 (2), A7 (1), base area 2, so no
    # stack is higher than its base area (RULES 9.8 "leaving any castle with a stack higher than its base area").
    assert ("B8", "A7") in card_uses(mb(), "move_block")
    s = play(mb(), "move_block", **{"from": "B8", "to": "A7"})
    assert {k: v for k, v in position(s)["heights"].items() if k in ("A7", "A8", "B8")} == {"A7": 1, "A8": 2}


def test_move_block_judged_after_the_move_no_split():
    # U-shaped castle F1 G1 H1 F2 H2: G1 moved to G2 leaves F1 F2 G2 H2 H1, still one castle (nothing split,
    # nothing joined, same number of castles).
    heights = board(drop=("F3",), F1=1, G1=1, H1=1, F2=1, H2=1)
    assert ("G1", "G2") in card_uses(mb(heights=heights), "move_block")
    s = play(mb(heights=heights), "move_block", **{"from": "G1", "to": "G2"})
    assert position(s)["heights"]["G2"] == 1


SIX = board(drop=("F6", "E8"))  # exactly 6 castles: D1, C3, F3, H4, A5, C6


def test_move_block_may_not_leave_fewer_than_6_castles():
    s = mb(heights=SIX, knights=knights("C3", "F3"), king="H4")
    with pytest.raises(tr.IllegalAction, match="fewer than 6"):
        play(s, "move_block", **{"from": "D1", "to": "C2"})
    s2 = play(s, "move_block", **{"from": "D1", "to": "E5"})  # moved whole: still 6 castles
    assert position(s2)["heights"]["E5"] == 1


def test_move_block_exact_uses_with_6_castles():
    # C3, F3, H4 carry figures; D1, A5, C6 are free single blocks. Each may only move onto ground touching no
    # other castle (joining one would leave 5 castles; every top is at its base area).
    s = mb(heights=SIX, knights=knights("C3", "F3"), king="H4")
    castles = ["D1", "C3", "F3", "H4", "A5", "C6"]
    expected = set()
    for src in ("D1", "A5", "C6"):
        others = [c for c in castles if c != src]
        blocked = set(castles) | {n for c in others for n in neighbours(c)}
        expected |= {(src, sq) for sq in SQUARES if sq not in blocked}
    assert card_uses(s, "move_block") == expected
    assert len(expected) == 40 + 40 + 41  # C6 has 4 neighbours, D1 and A5 have 3


def test_move_block_leaving_5_castles_lands_only_where_it_founds_one():
    # 6 castles; the free single block E2 is the only one that may move. Lifted, it leaves 5: it may only found a
    # new castle. E3 and F2 touch F3 only once E2 is gone (a build square then) but moving there leaves 5
    # castles; E1 touches nothing (a new castle).
    heights = board(drop=("D1", "F6", "E8"), E2=1)
    s = mb(heights=heights, knights=knights("C3 A5", "F3 C6"), king="H4")
    uses = card_uses(s, "move_block")
    assert {frm for frm, _ in uses} == {"E2"}
    assert ("E2", "E1") in uses
    assert not uses & {("E2", "E3"), ("E2", "F2"), ("E2", "D3")}
    with pytest.raises(tr.IllegalAction, match="fewer than 6"):
        play(s, "move_block", **{"from": "E2", "to": "E3"})


# --- 9 reposition knight ------------------------------------------------------------------------------------


def test_reposition_knight_exact_uses():
    # seat 0: C2 (level 2) and G7 (ground). G7 goes next to C2 at level <= 2: C1, B2, D2, C3.
    # C2 goes next to G7 at level 0: G6, F7, H7, G8.
    s = with_cards("reposition_knight", heights=M, knights=knights("C2 G7", "B3"), king="B1")
    expected = {("G7", sq) for sq in ("C1", "B2", "D2", "C3")} | {("C2", sq) for sq in ("G6", "F7", "H7", "G8")}
    assert card_uses(s, "reposition_knight") == expected


def test_reposition_knight_not_next_to_itself():
    # C2 and D2 are neighbours: D2 may only go next to C2 (C1, B2, C3), C2 only next to D2 (E2, D3; D1 is higher)
    s = with_cards("reposition_knight", heights=M, knights=knights("C2 D2", "B3"), king="B1")
    expected = {("D2", "C1"), ("D2", "B2"), ("D2", "C3"), ("C2", "E2"), ("C2", "D3")}
    assert card_uses(s, "reposition_knight") == expected


def test_reposition_knight_needs_another_knight():
    s = with_cards("reposition_knight", heights=M, knights=knights("C2", "B3"), king="B1")
    assert card_uses(s, "reposition_knight") == set()


def test_reposition_knight_is_free_and_illegal_targets_rejected():
    s = with_cards("reposition_knight", heights=M, knights=knights("C2 G7", "B3"), king="B1")
    refused(s, "reposition_knight", "reposition_knight", ("G7", "A1"), ("G7", "B3"))
    s = play(s, "reposition_knight", **{"from": "G7", "to": "B2"})
    assert position(s)["knights"] == {"C2": 0, "B2": 0, "B3": 1}
    assert position(s)["ap_spent"] == 0


# --- 10 jump ------------------------------------------------------------------------------------------------

# the king on C4 (a single block); seat 0 on D4 and E4 (ground), seat 1 on D3 (ground)
J = board(drop=("C3",), C4=1)


def jump_state(edition: str = "rio_grande", heights: dict[str, int] = J) -> tr.State:
    return with_cards("jump", edition=edition, heights=heights, knights=knights("D4 E4", "D3"), king="C4")


def test_jump_exact_uses_over_any_figure():
    # D4 over D3 (foreign) to D2, over C4 (king) to B4, over E4 (own) to F4; E4 over D4 lands on the king: no
    assert card_uses(jump_state(), "jump") == {("D4", "D2"), ("D4", "B4"), ("D4", "F4")}


def test_jump_over_a_foreign_knight_only_in_ravensburger():
    s = jump_state("ravensburger")
    assert card_uses(s, "jump") == {("D4", "D2")}
    refused(s, "jump", "foreign knight",
            ("D4", "B4"),  # over the king
            ("D4", "F4"))  # over an own knight


def test_jump_over_option_alone():
    s = with_cards("jump", options={"jump_over": "foreign_knight"}, heights=J, knights=knights("D4 E4", "D3"),
                   king="C4")
    assert card_uses(s, "jump") == {("D4", "D2")}


def test_jump_lands_at_most_one_level_higher():
    s = jump_state(heights=dict(J, D2=2))  # D1-D2 form a castle of base 2, D2 at level 2
    assert card_uses(s, "jump") == {("D4", "B4"), ("D4", "F4")}
    with pytest.raises(tr.IllegalAction, match="at most 1 level higher"):
        play(s, "jump", **{"from": "D4", "to": "D2"})
    s = jump_state(heights=dict(J, D2=1))
    assert ("D4", "D2") in card_uses(s, "jump")


def test_jump_needs_an_adjacent_figure_and_a_straight_line():
    s = jump_state()
    with pytest.raises(tr.IllegalAction, match="jump"):
        play(s, "jump", **{"from": "D4", "to": "D6"})  # nothing on D5
    with pytest.raises(tr.IllegalAction, match="jump"):
        play(s, "jump", **{"from": "D4", "to": "C2"})


def test_jump_moves_the_knight():
    s = play(jump_state(), "jump", **{"from": "D4", "to": "B4"})
    assert position(s)["knights"] == {"B4": 0, "E4": 0, "D3": 1}
    assert position(s)["king"] == "C4"


# --- buying: personal deck (Rio Grande) ---------------------------------------------------------------------

DECK = ["diagonal", "jump", "six_ap", "seven_ap"]


def personal(deck: list[str] = DECK, **fields) -> tr.State:
    fields.setdefault("knights", knights("A1", "H8"))
    fields.setdefault("king", "D1")
    return pos(decks=[list(deck), []], **fields)


def test_buy_shows_the_top_3_and_costs_1_ap():
    s = tr.apply(personal(), {"type": "buy_card"})
    p = position(s)
    assert p["stage"] == "keep_card"
    assert p["seen"] == ["diagonal", "jump", "six_ap"]
    assert p["decks"][0] == ["seven_ap"]
    assert (p["ap_spent"], p["cards_bought"]) == (1, 1)


def test_keep_card_choices_are_listed_completely():
    s = tr.apply(personal(), {"type": "buy_card"})
    listed = {(a["card"], a["rest"], tuple(a["order"])) for a in tr.legal_actions(s)}
    assert all(a["type"] == "keep_card" for a in tr.legal_actions(s))
    seen = ["diagonal", "jump", "six_ap"]
    expected = set()
    for card in seen:
        a, b = [c for c in seen if c != card]
        for rest in ("top", "bottom"):
            expected |= {(card, rest, (a, b)), (card, rest, (b, a))}
    assert listed == expected
    assert len(listed) == 12


def test_keep_card_rest_on_top_in_chosen_order():
    s = tr.apply(personal(), {"type": "buy_card"})
    s = tr.apply(s, {"type": "keep_card", "card": "jump", "rest": "top", "order": ["six_ap", "diagonal"]})
    p = position(s)
    assert p["stage"] == "turn"
    assert p["hands"][0] == ["jump"]
    assert p["decks"][0] == ["six_ap", "diagonal", "seven_ap"]
    assert p["bought_this_turn"] == ["jump"]


def test_keep_card_rest_at_the_bottom_in_chosen_order():
    s = tr.apply(personal(), {"type": "buy_card"})
    s = tr.apply(s, {"type": "keep_card", "card": "six_ap", "rest": "bottom", "order": ["jump", "diagonal"]})
    assert position(s)["decks"][0] == ["seven_ap", "jump", "diagonal"]
    assert position(s)["hands"][0] == ["six_ap"]


def test_nothing_between_buy_and_keep():
    s = tr.apply(personal(), {"type": "buy_card"})
    for action in ({"type": "advance_track"}, {"type": "buy_card"}, {"type": "end_turn", "stack": 0}):
        with pytest.raises(tr.IllegalAction, match="keep_card"):
            tr.apply(s, action)


def test_keep_card_illegal_choices():
    s = tr.apply(personal(), {"type": "buy_card"})
    with pytest.raises(tr.IllegalAction, match="keep one of the cards"):
        tr.apply(s, {"type": "keep_card", "card": "seven_ap", "rest": "top", "order": ["jump", "six_ap"]})
    with pytest.raises(tr.IllegalAction, match="order"):
        tr.apply(s, {"type": "keep_card", "card": "jump", "rest": "top", "order": ["six_ap"]})
    with pytest.raises(tr.IllegalAction, match="order"):
        tr.apply(s, {"type": "keep_card", "card": "jump", "rest": "top", "order": ["six_ap", "jump"]})
    with pytest.raises(tr.IllegalAction, match="top"):
        tr.apply(s, {"type": "keep_card", "card": "jump", "rest": "middle", "order": ["six_ap", "diagonal"]})
    with pytest.raises(tr.IllegalAction, match="order"):  # not a TypeError from sorting None beside a str
        tr.apply(s, {"type": "keep_card", "card": "jump", "rest": "top", "order": [None, "six_ap"]})


def test_ravensburger_personal_variant_puts_the_rest_at_the_bottom_only():
    s = personal(edition="ravensburger", options={"deck": "personal"})
    s = tr.apply(s, {"type": "buy_card"})
    listed = tr.legal_actions(s)
    assert len(listed) == 6
    assert {a["rest"] for a in listed} == {"bottom"}
    with pytest.raises(tr.IllegalAction, match="bottom"):
        tr.apply(s, {"type": "keep_card", "card": "jump", "rest": "top", "order": ["six_ap", "diagonal"]})
    s = tr.apply(s, {"type": "keep_card", "card": "jump", "rest": "bottom", "order": ["diagonal", "six_ap"]})
    assert position(s)["decks"][0] == ["seven_ap", "diagonal", "six_ap"]


def test_buying_from_fewer_than_3_cards():
    s = tr.apply(personal(["diagonal", "jump"]), {"type": "buy_card"})
    assert position(s)["seen"] == ["diagonal", "jump"]
    assert len(tr.legal_actions(s)) == 4  # 2 cards x top/bottom
    s = tr.apply(personal(["jump"]), {"type": "buy_card"})
    assert {(a["card"], a["rest"], tuple(a["order"])) for a in tr.legal_actions(s)} == {
        ("jump", "top", ()), ("jump", "bottom", ())
    }
    s = tr.apply(s, {"type": "keep_card", "card": "jump", "rest": "top", "order": []})
    assert position(s)["decks"][0] == []
    assert position(s)["hands"][0] == ["jump"]


def test_at_most_2_buys_per_turn():
    s = personal(["diagonal", "jump", "six_ap", "seven_ap", "climb_two", "extra_block", "move_block"])
    s = tr.apply(s, {"type": "buy_card"})
    s = tr.apply(s, {"type": "keep_card", "card": "jump", "rest": "bottom", "order": ["diagonal", "six_ap"]})
    s = tr.apply(s, {"type": "buy_card"})
    s = tr.apply(s, tr.legal_actions(s)[0])
    assert position(s)["cards_bought"] == 2 and position(s)["ap_spent"] == 2
    assert not of_type(s, "buy_card")
    with pytest.raises(tr.IllegalAction, match="at most 2"):
        tr.apply(s, {"type": "buy_card"})


def test_buying_needs_an_ap():
    s = personal()
    for _ in range(5):
        s = tr.apply(s, {"type": "advance_track"})
    assert not of_type(s, "buy_card")
    with pytest.raises(tr.IllegalAction, match="AP"):
        tr.apply(s, {"type": "buy_card"})


def test_a_card_bought_this_turn_cannot_be_played():
    s = tr.apply(personal(), {"type": "buy_card"})
    s = tr.apply(s, {"type": "keep_card", "card": "six_ap", "rest": "top", "order": ["diagonal", "jump"]})
    assert card_uses(s, "six_ap") == set()
    with pytest.raises(tr.IllegalAction, match="bought this turn"):
        play(s, "six_ap")
    # next turn of the same player it may be played
    s = tr.apply(s, {"type": "end_turn", "stack": 0})
    s = tr.apply(s, {"type": "end_turn", "stack": 0})
    assert card_uses(s, "six_ap") == {()}


def test_a_hand_may_hold_any_number_of_cards():
    s = personal(hands=[["climb_two", "castle_gate", "reposition_knight", "extra_block"], []])
    s = tr.apply(s, {"type": "buy_card"})
    s = tr.apply(s, {"type": "keep_card", "card": "jump", "rest": "top", "order": ["diagonal", "six_ap"]})
    assert len(position(s)["hands"][0]) == 5


# --- buying: common deck (Ravensburger) ---------------------------------------------------------------------


def common(deck: list[str], **fields) -> tr.State:
    fields.setdefault("knights", knights("A1", "H8"))
    fields.setdefault("king", "D1")
    return pos(edition="ravensburger", deck=list(deck), **fields)


def test_common_deck_draws_the_top_card():
    s = tr.apply(common(["jump", "diagonal", "jump"]), {"type": "buy_card"})
    p = position(s)
    assert p["stage"] == "turn"
    assert p["hands"][0] == ["jump"]
    assert p["deck"] == ["diagonal", "jump"]
    assert p["ap_spent"] == 1
    s = tr.apply(s, {"type": "buy_card"})
    assert position(s)["hands"][0] == ["diagonal", "jump"]
    with pytest.raises(tr.IllegalAction, match="at most 2"):
        tr.apply(s, {"type": "buy_card"})


@pytest.mark.parametrize("empty", [personal, common], ids=["personal", "common"])
def test_an_empty_deck_cannot_be_bought_from(empty):
    """Seat 0's empty personal deck (Rio Grande) or the empty common deck (Ravensburger)."""
    s = empty([])
    assert not of_type(s, "buy_card")
    with pytest.raises(tr.IllegalAction, match="empty deck"):
        tr.apply(s, {"type": "buy_card"})


def test_common_deck_bought_card_not_playable_but_an_older_copy_is():
    s = tr.apply(common(["six_ap", "jump"]), {"type": "buy_card"})
    with pytest.raises(tr.IllegalAction, match="bought this turn"):
        play(s, "six_ap")
    s = tr.apply(common(["six_ap", "jump"], hands=[["six_ap"], []]), {"type": "buy_card"})
    assert position(s)["hands"][0] == ["six_ap", "six_ap"]
    assert card_uses(s, "six_ap") == {()}
    s = play(s, "six_ap")
    assert position(s)["hands"][0] == ["six_ap"]
    assert position(s)["ap"] == 6


def test_common_deck_option_alone():
    s = pos(options={"deck": "common"}, deck=["jump"], knights=knights("A1", "H8"), king="D1")
    s = tr.apply(s, {"type": "buy_card"})
    assert position(s)["hands"][0] == ["jump"]


def test_no_buying_in_the_master_version():
    s = pos(master=True, master_card="edge", hands=[list(tr.CARD_KINDS), list(tr.CARD_KINDS)],
            knights=knights("A1", "H8"), king="D1")
    assert not of_type(s, "buy_card")
    with pytest.raises(tr.IllegalAction, match="no buying"):
        tr.apply(s, {"type": "buy_card"})
    # all ten cards are in hand and playable (one per turn)
    assert {a["card"] for a in of_type(s, "play_card")} >= {"six_ap", "seven_ap", "extra_block"}


def test_new_master_game_deals_every_card_to_every_hand():
    p = position(tr.new_game(3, seed=5, master=True))
    assert p["hands"] == [sorted(tr.CARD_KINDS)] * 3
    assert p["decks"] is None and p["deck"] is None

