"""RULES 12: the three editions as presets of options; every option can also be set alone."""

from __future__ import annotations

import pytest

import torres_rules as tr

from .helpers import position

PRESETS = {
    "rio_grande": {
        "deck": "personal", "personal_rest": "top_or_bottom", "carry_over_blocks": True, "king_mover_starts": True,
        "jump_over": "any", "master_diagonal_foundations": True, "start_player": "seat0", "stack_choice": "player",
    },
    "ravensburger": {
        "deck": "common", "personal_rest": "bottom", "carry_over_blocks": False, "king_mover_starts": False,
        "jump_over": "foreign_knight", "master_diagonal_foundations": False, "start_player": "seat0",
        "stack_choice": "player",
    },
    "yucata": {
        "deck": "personal", "personal_rest": "top_or_bottom", "carry_over_blocks": True, "king_mover_starts": True,
        "jump_over": "any", "master_diagonal_foundations": True, "start_player": "random", "stack_choice": "largest",
    },
}


@pytest.mark.parametrize("edition", list(PRESETS))
def test_edition_presets(edition):
    p = position(tr.new_game(3, seed=1, edition=edition))
    assert p["edition"] == edition
    assert p["options"] == PRESETS[edition]


def test_rio_grande_is_the_default():
    assert position(tr.new_game(2, seed=1))["options"] == PRESETS["rio_grande"]


@pytest.mark.parametrize(
    "option, value",
    [("deck", "common"), ("personal_rest", "bottom"), ("carry_over_blocks", False), ("king_mover_starts", False),
     ("jump_over", "foreign_knight"), ("master_diagonal_foundations", False), ("start_player", "random"),
     ("stack_choice", "largest")],
)
def test_each_option_alone(option, value):
    p = position(tr.new_game(2, seed=1, **{option: value}))
    assert p["options"] == {**PRESETS["rio_grande"], option: value}
    assert p["edition"] == "rio_grande"


def test_option_over_a_preset():
    p = position(tr.new_game(2, seed=1, edition="ravensburger", deck="personal"))
    assert p["options"] == {**PRESETS["ravensburger"], "deck": "personal"}
    assert p["decks"] is not None and p["deck"] is None


def test_master_version_uses_the_hand_deck():
    for edition in PRESETS:
        assert position(tr.new_game(2, seed=1, edition=edition, master=True))["options"]["deck"] == "hand"


@pytest.mark.parametrize(
    "kwargs",
    [{"edition": "fx"}, {"deck": "secret"}, {"carry_over_blocks": "yes"}, {"colour": "red"}, {"deck": "hand"},
     {"players": 5}, {"players": 1}],
)
def test_bad_editions_and_options_are_rejected(kwargs):
    kwargs = {"players": 2, **kwargs}
    with pytest.raises(ValueError):
        tr.new_game(seed=1, **kwargs)


def test_options_round_trip_through_positions():
    s = tr.new_game(2, seed=1, edition="yucata", jump_over="foreign_knight")
    assert tr.from_position(s.to_position()) == s
    assert position(tr.from_position(s.to_position()))["options"]["jump_over"] == "foreign_knight"


def test_options_to_dict_names_every_option():
    from dataclasses import asdict

    for edition in tr.EDITIONS:
        options = tr.new_game(2, seed=1, edition=edition).options
        assert options.to_dict() == asdict(options)
