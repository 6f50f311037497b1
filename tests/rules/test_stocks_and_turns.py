"""RULES 4 and 5 (turn frame): phases, rounds per player count, one stack per turn, AP per turn."""

from __future__ import annotations

import pytest

import torres_rules as tr

from .helpers import end_turn, knights, pos, position

STOCKS = {
    2: ([3, 3, 3, 3], [3, 3, 3, 3], [3, 3, 3, 3]),
    3: ([3, 3, 2, 2], [3, 3, 2], [3, 3, 2]),
    4: ([2, 2, 2, 2], [2, 2, 2], [2, 2, 2]),
}


def started(players: int, edition: str = "ravensburger") -> tr.State:
    s = tr.new_game(players, seed=7, edition=edition)
    for at in ("C3", "F3", "H4", "A5")[:players]:
        s = tr.apply(s, {"type": "place_start_knight", "at": at})
    return tr.apply(s, {"type": "place_king", "at": "D1"})


@pytest.mark.parametrize("players", [2, 3, 4])
def test_phases_rounds_and_stocks(players):
    """Play a whole game by ending every turn at once; record who moves when and the stocks at phase start."""
    s = started(players)
    rounds = [4, 4, 4] if players == 2 else [4, 3, 3]
    turns: list[tuple[int, int, int]] = []
    stocks_at_start: list[list[list[int]]] = []
    while not tr.is_over(s):
        p = position(s)
        if p["stage"] == "move_king":
            s = tr.apply(s, {"type": "move_king", "to": None})
            continue
        if p["round"] == 1 and p["to_move"] == p["start_player"]:
            stocks_at_start.append(p["stacks"])
        turns.append((p["phase"], p["round"], p["to_move"]))
        # one stack per turn left, counting this one
        assert len(p["stacks"][p["to_move"]]) == rounds[p["phase"] - 1] - p["round"] + 1
        s = end_turn(s)
    expected = [(phase, r, seat) for phase in (1, 2, 3) for r in range(1, rounds[phase - 1] + 1)
                for seat in range(players)]
    assert turns == expected  # Ravensburger: the start player never changes
    assert stocks_at_start == [[list(STOCKS[players][i])] * players for i in range(3)]


def test_every_turn_has_5_ap_and_unspent_ap_are_lost():
    s = started(2)
    assert (position(s)["ap"], position(s)["ap_spent"]) == (5, 0)
    s = tr.apply(s, {"type": "advance_track"})
    s = end_turn(s)
    assert (position(s)["to_move"], position(s)["ap"], position(s)["ap_spent"]) == (1, 5, 0)
    s = end_turn(s)
    assert (position(s)["to_move"], position(s)["round"], position(s)["ap_spent"]) == (0, 2, 0)


def test_turn_ends_only_when_the_player_ends_it():
    s = pos(knights=knights("A1", "H1"), king="D1")
    for _ in range(5):
        s = tr.apply(s, {"type": "advance_track"})
    p = position(s)
    assert p["to_move"] == 0 and p["ap_spent"] == 5
    assert {a["type"] for a in tr.legal_actions(s)} == {"end_turn"}


def test_actions_in_any_order_and_mix():
    s = pos(knights=knights("C3", "H1"), king="D1")
    s = tr.apply(s, {"type": "advance_track"})
    s = tr.apply(s, {"type": "build", "at": "C2", "stack": 0})
    s = tr.apply(s, {"type": "move_knight", "from": "C3", "to": "C2"})
    s = tr.apply(s, {"type": "build", "at": "B3"})
    s = tr.apply(s, {"type": "advance_track"})
    p = position(s)
    assert p["ap_spent"] == 5
    assert p["scores"] == [2, 0]
    assert p["knights"] == {"C2": 0, "H1": 1}
    assert p["heights"]["C2"] == 1 and p["heights"]["B3"] == 1


def test_unknown_or_malformed_actions_are_rejected():
    s = pos(knights=knights("C3", "H1"), king="D1")
    for action in ({"type": "fly"}, {"type": "advance_track", "extra": 1}, "end_turn",
                   {"type": "build", "at": "Z9", "stack": 0}, {"type": "build", "at": "C2", "stack": 9},
                   {"type": ["build"]}, {"type": None}):  # an unhashable type is an IllegalAction, not a TypeError
        with pytest.raises(tr.IllegalAction):
            tr.apply(s, action)


def test_apply_leaves_the_state_unchanged():
    s = pos(knights=knights("C3", "H1"), king="D1")
    before = s.to_position()
    tr.apply(s, {"type": "advance_track"})
    assert s.to_position() == before
