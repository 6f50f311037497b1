"""The position JSON (docs/rules-contract.md): round trips, defaults, and rejection of every impossible position
(docs/rules.md section 2)."""

from __future__ import annotations

import json

import pytest

import torres_rules as tr

from .helpers import board, end_turn, knights, last_turn, pos, position

BASE = {"players": 2, "heights": board(), "knights": {"A1": 0, "H8": 1}, "king": "D1"}


def round_trips(state: tr.State) -> None:
    p = state.to_position()
    assert json.loads(json.dumps(p)) == p
    again = tr.from_position(json.loads(json.dumps(p)))
    assert again == state
    assert again.to_position() == p
    assert tr.legal_actions(again) == tr.legal_actions(state)


def first_actions(state: tr.State, n: int) -> list[tr.State]:
    out = [state]
    for _ in range(n):
        if tr.is_over(state):
            break
        state = tr.apply(state, tr.legal_actions(state)[0])
        out.append(state)
    return out


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("edition", ["rio_grande", "ravensburger", "yucata"])
@pytest.mark.parametrize("master", [False, True])
def test_round_trip_through_setup_and_first_turns(players, edition, master):
    for state in first_actions(tr.new_game(players, seed=11, edition=edition, master=master), 25):
        round_trips(state)


def test_round_trip_special_stages():
    s = pos(decks=[["diagonal", "jump", "six_ap"], []], knights=knights("A1", "H8"), king="D1")
    round_trips(tr.apply(s, {"type": "buy_card"}))  # keep_card
    s = end_turn(last_turn(3, 1, knights=knights("C3", "F3", "A8"), king="D1"))
    assert position(s)["stage"] == "move_king"
    round_trips(s)
    s = end_turn(last_turn(2, 3, knights=knights("C3", "F3"), king="D1"))
    assert position(s)["stage"] == "over"
    round_trips(s)
    round_trips(pos(edition="ravensburger", deck=["jump", "jump"], hands=[["jump"], []], **{
        k: v for k, v in BASE.items() if k != "players"}))


def test_defaults_make_a_fresh_turn():
    p = position(tr.from_position(dict(BASE)))
    assert (p["stage"], p["phase"], p["round"], p["start_player"], p["to_move"]) == ("turn", 1, 1, 0, 0)
    assert (p["ap"], p["ap_spent"], p["card_played"], p["cards_bought"], p["stack_chosen"]) == (5, 0, False, 0, None)
    assert p["scores"] == [0, 0]
    assert p["stacks"] == [[3, 3, 3, 3], [3, 3, 3, 3]]
    assert p["supply"] == 92 - 8 - 24


def test_default_stacks_follow_the_turns_left():
    p = position(tr.from_position({**BASE, "players": 3, "round": 2, "to_move": 1,
                                   "knights": {"A1": 0, "H8": 1, "H1": 2}}))
    assert [len(s) for s in p["stacks"]] == [2, 3, 3]
    assert sum(p["heights"].values()) + sum(map(sum, p["stacks"])) + p["supply"] == 92


def test_invalid_position_is_a_value_error():
    assert issubclass(tr.InvalidPosition, ValueError)


@pytest.mark.parametrize(
    "change, phrase",
    [
        ({"supply": 10}, "92"),
        ({"heights": board(drop=("C6", "F6", "E8"))}, "fewer than 6 castles"),
        ({"heights": board(D1=2)}, "base area"),
        ({"heights": board(drop=("C3",), C2=3, B2=1)}, "base area"),  # height 3 in a castle of base 2
        ({"knights": {"D1": 0, "H8": 1}}, "one figure"),
        ({"knights": {"A1": 0, "A2": 0, "A3": 0, "A4": 0, "B1": 0, "B2": 0, "B3": 0, "H8": 1}}, "at most 6"),
        ({"scores": [3, 3]}, "share"),
        ({"stacks": [[3, 3, 3], [3, 3, 3, 3]]}, "stack"),
        ({"king": None}, "king"),
        ({"knights": {"A1": 0}}, "knight"),
        ({"color": "red"}, "unknown"),
        ({"heights": {"Z9": 1}}, "not a square"),
        ({"heights": dict(board(), A1=-1)}, "0"),
        ({"knights": {"A1": 0, "H8": 2}}, "seat"),
        ({"players": 5}, "players"),
        ({"edition": "fx"}, "edition"),
        ({"options": {"colour": "red"}}, "unknown option"),
        ({"options": {"deck": "hand"}}, "master"),
        ({"master": True}, "master_card"),
        ({"master_card": "edge"}, "master version"),
        ({"stage": "over", "to_move": 0}, "null"),
        ({"stage": "middle"}, "stage"),
        ({"to_move": 2}, "to_move"),
        ({"ap": 9}, "ap"),
        ({"ap_spent": 6}, "ap_spent"),
        ({"cards_bought": 3}, "cards_bought"),
        ({"stack_chosen": 4}, "stack_chosen"),
        ({"hands": [["jump"], []], "decks": [["jump"], []]}, "twice"),
        ({"hands": [["bazooka"], []]}, "card kinds"),
        ({"edition": "ravensburger", "deck": ["jump"] * 5}, "only 4"),
        ({"seen": ["jump"]}, "seen"),
        ({"stage": "keep_card", "seen": []}, "1 to 3"),
        ({"stage": "keep_card", "seen": ["jump"], "edition": "ravensburger"}, "personal"),
        ({"bought_this_turn": ["jump"], "cards_bought": 1}, "hand"),
        ({"stage": "setup", "knights": {}, "king": "D1"}, "setup"),
    ],
)
def test_impossible_positions_are_rejected(change, phrase):
    with pytest.raises(tr.InvalidPosition, match=phrase):
        tr.from_position({**BASE, **change})


def test_shared_score_zero_is_fine_and_master_setup_may_have_few_castles():
    tr.from_position({**BASE, "scores": [0, 0]})
    tr.from_position({"players": 2, "master": True, "master_card": "edge", "stage": "setup", "heights": {"A1": 1}})


def test_from_position_does_not_alias_the_input():
    p = dict(BASE, heights=board())
    s = tr.from_position(p)
    p["heights"]["A1"] = 1
    assert "A1" not in position(s)["heights"]


@pytest.mark.parametrize(
    "fields",
    [
        pytest.param({"stage": "setup", "knights": {"C3": 0, "F3": 0}, "king": None}, id="two-start-knights-one-seat"),
        pytest.param({"stage": "setup", "knights": {"B2": 0}, "king": None}, id="start-knight-on-ground"),
        pytest.param({"king": "B2"}, id="king-on-ground"),
        pytest.param({"stage": "move_king", "phase": 1}, id="move-king-in-phase-1"),
    ],
)
def test_unreachable_positions_are_rejected(fields):
    with pytest.raises(tr.InvalidPosition, match=r"start knight|foundations|king"):
        tr.from_position({**BASE, **fields})


def test_copy_and_identity_cover_every_declared_field():
    """State declares its fields once; `_copy` and `_identity` spell them out for the compiled build's speed, so
    a field added to the declaration and forgotten there fails here."""
    from torres_rules.state import FIELDS

    s = tr.apply(pos(decks=[["diagonal", "jump", "six_ap"], []], knights=knights("A1", "H8"), king="D1"),
                 {"type": "buy_card"})
    assert tuple(position(s)) == FIELDS
    copy = s._copy()
    assert all(getattr(copy, name) is getattr(s, name) for name in FIELDS)
    assert s._identity() == tuple(getattr(s, name) for name in FIELDS)
    assert copy == s and hash(copy) == hash(s)


def test_parse_and_check_are_separate_steps():
    """Like python-chess's `set_fen` and `Board.status()`: a well-formed but unreachable position parses, and the
    check names the rule it breaks."""
    from torres_rules.state import check_position, parse_position

    state = parse_position({**BASE, "scores": [3, 3]})
    assert state.scores == (3, 3)
    with pytest.raises(tr.InvalidPosition, match="share"):
        check_position(state)
    with pytest.raises(tr.InvalidPosition, match="players"):
        parse_position({**BASE, "players": 5})
    check_position(parse_position(dict(BASE)))
