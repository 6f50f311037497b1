"""The terminal client: a person plays a whole game; bad input gets a message and a new prompt, never a crash."""

from __future__ import annotations

import itertools
import random

import pytest

import torres_rules as tr
from torres_terminal.__main__ import choose, play


def test_a_person_plays_a_whole_game_and_bad_input_never_crashes() -> None:
    rng = random.Random(7)
    junk = itertools.cycle(["", "0", "99999", "hello", "{not json", "[1, 2]", '{"type": "fly"}',
                            '{"type": "build", "at": "Z9", "stack": 0}', "help", "board"])
    said: list[str] = []
    prompts = itertools.count()

    def ask(prompt: str) -> str:
        n = next(prompts)
        if n % 3 == 0:
            return next(junk)
        return str(rng.randint(1, 3))  # some listed action

    state = play(3, "rio_grande", False, seed=11, seat=1, ask=ask, say=said.append)
    assert tr.is_over(state)
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
    state = play(2, "yucata", True, seed=1, seat=0, ask=lambda _: "quit", say=lambda _: None)
    assert not tr.is_over(state)
