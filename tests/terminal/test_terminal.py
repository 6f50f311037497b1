"""The terminal client: a person plays a whole game; bad input gets a message and a new prompt, never a crash."""

from __future__ import annotations

import itertools
import random

import pytest

from torres_terminal.__main__ import choose, play
from torres_terminal.games import LocalGame

JUNK = ["", "0", "99999", "hello", "{not json", "[1, 2]", '{"type": "fly"}',
        '{"type": "build", "at": "Z9", "stack": 0}', "help", "board"]


def scripted(seed: int):
    """A person who mostly picks one of the first listed actions and now and then types nonsense."""
    rng = random.Random(seed)
    junk = itertools.cycle(JUNK)
    prompts = itertools.count()
    return lambda prompt: next(junk) if next(prompts) % 3 == 0 else str(rng.randint(1, 3))


def test_a_person_plays_a_whole_local_game_and_bad_input_never_crashes() -> None:
    said: list[str] = []
    view = play(LocalGame(3, "rio_grande", False, seed=11, seat=1), ask=scripted(7), say=said.append)
    assert view["stage"] == "over"
    text = "\n".join(said)
    assert "game over" in text
    assert "illegal:" in text and "pick a number" in text and "not valid JSON" in text


@pytest.mark.parametrize(("reply", "expected"), [
    ("2", {"type": "b"}),
    ("3", "pick a number from 1 to 2"),
    ('{"type": "x"}', {"type": "x"}),
    ("[]", "type a number, a JSON action, 'board', 'help' or 'quit'"),
    ("{", "that is not valid JSON: Expecting property name enclosed in double quotes"),
])
def test_choose_names_what_is_wrong(reply: str, expected: object) -> None:
    assert choose([{"type": "a"}, {"type": "b"}], reply) == expected


def test_quit_ends_the_game_early() -> None:
    view = play(LocalGame(2, "yucata", True, seed=1, seat=0), ask=lambda _: "quit", say=lambda _: None)
    assert view["stage"] != "over"
