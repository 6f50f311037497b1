"""RULES 13: hidden information -- what `view(state, seat)` shows."""

from __future__ import annotations

import json

import pytest

import torres_rules as tr

from .helpers import knights, pos, position

HANDS = [["climb_two"], ["jump"]]
DECKS = [["diagonal", "six_ap", "seven_ap", "move_block"], ["castle_gate", "extra_block"]]
SECRET_TO_SEAT_1 = {"climb_two", "diagonal", "six_ap", "seven_ap", "move_block", "castle_gate", "extra_block"}


def game() -> tr.State:
    return pos(hands=[list(h) for h in HANDS], decks=[list(d) for d in DECKS], knights=knights("A1", "H8"), king="D1")


def words(view: dict) -> set[str]:
    """Every string value anywhere in the view (dict keys aside, so option names do not count as cards)."""
    out: set[str] = set()
    todo: list = [json.loads(json.dumps(view))]
    while todo:
        value = todo.pop()
        if isinstance(value, dict):
            todo.extend(value.values())
        elif isinstance(value, list):
            todo.extend(value)
        elif isinstance(value, str):
            out.add(value)
    return out


def test_own_hand_shown_other_hands_as_counts():
    v0, v1 = tr.view(game(), 0), tr.view(game(), 1)
    assert v0["hand"] == ["climb_two"] and v1["hand"] == ["jump"]
    assert v0["hand_sizes"] == v1["hand_sizes"] == [1, 1]
    for v in (v0, v1):
        assert "hands" not in v and "decks" not in v and "deck" not in v


def test_deck_order_is_secret_even_to_the_owner():
    v0 = tr.view(game(), 0)
    assert v0["deck_sizes"] == [4, 2]
    for card in ("diagonal", "six_ap", "seven_ap", "move_block", "castle_gate", "extra_block"):
        assert card not in words(v0)


def test_no_other_seat_card_appears_anywhere():
    text = words(tr.view(game(), 1))
    assert text
    for card in SECRET_TO_SEAT_1:
        assert card not in text
    assert "jump" in text


def test_spectator_sees_no_card_at_all():
    v = tr.view(game(), None)
    assert v["seat"] is None and v["hand"] is None
    assert v["hand_sizes"] == [1, 1] and v["deck_sizes"] == [4, 2]
    for card in tr.CARD_KINDS:
        assert card not in words(v)


def test_cards_seen_while_buying_are_known_to_the_buyer_only():
    s = tr.apply(game(), {"type": "buy_card"})
    assert tr.view(s, 0)["seen"] == ["diagonal", "six_ap", "seven_ap"]
    other = tr.view(s, 1)
    assert other["seen"] is None and other["seen_count"] == 3
    for card in ("diagonal", "six_ap", "seven_ap"):
        assert card not in words(other)
        assert card not in words(tr.view(s, None))
    s = tr.apply(s, {"type": "keep_card", "card": "six_ap", "rest": "top", "order": ["diagonal", "seven_ap"]})
    assert tr.view(s, 0)["hand"] == ["climb_two", "six_ap"]
    assert tr.view(s, 0)["bought_this_turn"] == ["six_ap"]
    assert "six_ap" not in words(tr.view(s, 1))
    assert tr.view(s, 1)["hand_sizes"] == [2, 1]


def test_common_deck_shows_its_size_only():
    s = pos(edition="ravensburger", deck=["jump", "diagonal", "jump"], hands=[["six_ap"], []],
            knights=knights("A1", "H8"), king="D1")
    v = tr.view(s, 1)
    assert v["deck_size"] == 3
    for card in ("jump", "diagonal", "six_ap"):
        assert card not in words(v)


def test_everything_else_is_public():
    s = game()
    full = position(s)
    v = tr.view(s, 1)
    for key in ("heights", "knights", "king", "scores", "stacks", "supply", "phase", "round", "to_move", "ap",
                "ap_spent", "edition", "options", "stage"):
        assert v[key] == full[key]


def test_the_seed_is_not_part_of_any_view_or_position():
    s = tr.new_game(2, seed=123456789)
    for v in (tr.view(s, 0), tr.view(s, 1), tr.view(s, None), s.to_position()):
        assert "seed" not in v
        assert "123456789" not in json.dumps(v)


def test_view_of_a_seat_that_does_not_exist():
    with pytest.raises(ValueError):
        tr.view(game(), 2)
