"""RULES 3: setup -- foundations, start knights in turn order, the king by the last placer, stocks and cards."""

from __future__ import annotations

import pytest

import torres_rules as tr

from .helpers import FOUNDATIONS, position, squares_of


def test_new_game_board_has_the_8_foundations():
    for players in (2, 3, 4):
        p = position(tr.new_game(players, seed=1))
        assert p["heights"] == {sq: 1 for sq in FOUNDATIONS}
        assert p["stage"] == "setup"
        assert p["knights"] == {} and p["king"] is None
        assert p["to_move"] == 0 and p["start_player"] == 0


def test_start_knights_on_free_foundations_in_turn_order_then_king_by_last_placer():
    s = tr.new_game(3, seed=1)
    assert squares_of(s, "place_start_knight") == set(FOUNDATIONS)
    s = tr.apply(s, {"type": "place_start_knight", "at": "C3"})
    assert position(s)["to_move"] == 1
    assert squares_of(s, "place_start_knight") == set(FOUNDATIONS) - {"C3"}
    s = tr.apply(s, {"type": "place_start_knight", "at": "F3"})
    assert position(s)["to_move"] == 2
    s = tr.apply(s, {"type": "place_start_knight", "at": "H4"})
    # the last placer (seat 2) places the king on a free foundation
    assert position(s)["to_move"] == 2
    assert [a["type"] for a in tr.legal_actions(s)] == ["place_king"] * 5
    assert squares_of(s, "place_king") == set(FOUNDATIONS) - {"C3", "F3", "H4"}
    s = tr.apply(s, {"type": "place_king", "at": "E8"})
    p = position(s)
    assert p["knights"] == {"C3": 0, "F3": 1, "H4": 2}
    assert p["king"] == "E8"
    assert (p["stage"], p["phase"], p["round"], p["to_move"], p["ap"]) == ("turn", 1, 1, 0, 5)


def test_one_start_knight_each_on_a_free_foundation():
    s = tr.apply(tr.new_game(2, seed=1), {"type": "place_start_knight", "at": "C3"})
    with pytest.raises(tr.IllegalAction, match="free foundation"):
        tr.apply(s, {"type": "place_start_knight", "at": "C3"})
    with pytest.raises(tr.IllegalAction, match="free foundation"):
        tr.apply(s, {"type": "place_start_knight", "at": "B2"})


def test_setup_order_is_enforced():
    s = tr.new_game(2, seed=1)
    with pytest.raises(tr.IllegalAction):
        tr.apply(s, {"type": "place_king", "at": "C3"})
    with pytest.raises(tr.IllegalAction, match="setup"):
        tr.apply(s, {"type": "place_knight", "at": "C3"})
    s = tr.apply(s, {"type": "place_start_knight", "at": "C3"})
    s = tr.apply(s, {"type": "place_start_knight", "at": "F3"})
    with pytest.raises(tr.IllegalAction):
        tr.apply(s, {"type": "place_start_knight", "at": "H4"})
    with pytest.raises(tr.IllegalAction, match="free foundation"):
        tr.apply(s, {"type": "place_king", "at": "C3"})


@pytest.mark.parametrize("players, stock", [(2, [3, 3, 3, 3]), (3, [3, 3, 2, 2]), (4, [2, 2, 2, 2])])
def test_phase_1_stocks_are_dealt(players, stock):
    p = position(tr.new_game(players, seed=1))
    assert p["stacks"] == [stock] * players
    assert p["supply"] == 92 - 8 - sum(stock) * players


def test_cards_dealt_per_deck_mode():
    rio = position(tr.new_game(3, seed=1))
    assert [sorted(d) for d in rio["decks"]] == [sorted(tr.CARD_KINDS)] * 3
    assert rio["hands"] == [[], [], []] and rio["deck"] is None
    rav = position(tr.new_game(3, seed=1, edition="ravensburger"))
    assert sorted(rav["deck"]) == sorted(tr.CARD_KINDS * 4)
    assert rav["decks"] is None and rav["hands"] == [[], [], []]


@pytest.mark.parametrize("edition", ["rio_grande", "ravensburger"])
def test_start_player_is_seat_0(edition):
    assert {position(tr.new_game(4, seed=seed, edition=edition))["start_player"] for seed in range(20)} == {0}


def test_yucata_start_player_is_drawn_from_the_seed():
    starts = {seed: position(tr.new_game(4, seed=seed, edition="yucata"))["start_player"] for seed in range(40)}
    assert set(starts.values()) == {0, 1, 2, 3}
    for seed, start in list(starts.items())[:10]:  # the same seed gives the same start player
        assert position(tr.new_game(4, seed=seed, edition="yucata"))["start_player"] == start


def test_yucata_setup_from_the_random_start_player():
    seed = next(i for i in range(100) if position(tr.new_game(3, seed=i, edition="yucata"))["start_player"] == 1)
    s = tr.new_game(3, seed=seed, edition="yucata")
    assert position(s)["to_move"] == 1
    for expected_next, at in ((2, "C3"), (0, "F3"), (0, "H4")):
        s = tr.apply(s, {"type": "place_start_knight", "at": at})
        assert position(s)["to_move"] == expected_next
    # seat 0 placed last, so it places the king; then the start player begins
    assert squares_of(s, "place_king")
    s = tr.apply(s, {"type": "place_king", "at": "D1"})
    assert position(s)["knights"] == {"C3": 1, "F3": 2, "H4": 0}
    assert position(s)["to_move"] == 1


def test_random_start_option_alone():
    starts = {position(tr.new_game(4, seed=seed, start_player="random"))["start_player"] for seed in range(40)}
    assert len(starts) > 1
