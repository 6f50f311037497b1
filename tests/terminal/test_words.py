"""The terminal says moves, scorings and the result in the web client's English words: each string it uses is the
English of the same key in clients/web/js/strings.js (a string with plural forms under `key.one` / `key.other`)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from torres_terminal.words import STRINGS, action_words, move_words, outcome_words, scoring_terms

ROOT = Path(__file__).resolve().parents[2]
QUOTED = r"'((?:[^'\\]|\\.)*)'"


def web_english() -> dict[str, str]:
    """key (or key.form) -> English, read from the web client's table (one entry a line)."""
    found = {}
    for line in (ROOT / "clients" / "web" / "js" / "strings.js").read_text().splitlines():
        entry = re.match(rf"\s*{QUOTED}: \{{(.*)\}},?$", line)
        if not entry:
            continue
        key, body = entry.groups()
        forms = re.search(rf"en: \{{ one: {QUOTED}, other: {QUOTED} \}}", body)
        if forms:
            found[f"{key}.one"], found[f"{key}.other"] = forms.groups()
        elif plain := re.search(rf"en: {QUOTED}", body):
            found[key] = plain.group(1)
    return {key: text.replace("\\'", "'") for key, text in found.items()}


def test_every_string_is_the_web_clients() -> None:
    web = web_english()
    assert len(web) > 150
    differ = {key: (text, web.get(key)) for key, text in STRINGS.items() if web.get(key) != text}
    assert differ == {}


@pytest.mark.parametrize(("action", "offered", "told"), [
    ({"type": "build", "at": "D4", "stack": 0}, "Build a block on D4 from stack 1 (1 AP)",
     "builds a block on D4 from stack 1"),
    ({"type": "move_knight", "from": "D4", "to": "D5"}, "Move the knight D4 → D5 (1 AP)", "moves a knight D4 → D5"),
    ({"type": "keep_card", "card": "jump", "rest": "bottom", "order": ["diagonal"]},
     "Keep Jump; put Diagonal back on the bottom", "keeps Jump"),
    ({"type": "keep_card"}, None, "keeps an action card"),
    ({"type": "play_card", "card": "block_under_knight", "at": "C3", "stack": 2},
     "Play Block under knight on C3 from stack 3", "plays Block under knight on C3 from stack 3"),
    ({"type": "move_king", "to": None}, "Leave the king where it is", "leaves the king where it is"),
])
def test_actions_in_words(action: dict, offered: str | None, told: str) -> None:
    if offered is not None:
        assert action_words(action) == offered
    assert move_words(action) == told


def test_scoring_and_result_in_words() -> None:
    castles = [{"squares": ["C3", "C4"]}, {"squares": ["F6"]}]
    part = {"castles": [{"castle": 0, "area": 2, "level": 2, "points": 4}, {"castle": 1, "area": 1, "level": 1,
                                                                           "points": 1}],
            "king_bonus": 5, "master_points": 0, "collision": 1, "gained": 11, "score": 11}
    assert scoring_terms(part, castles) == ("castle of 2 squares at C3 × level 2 = 4; castle of 1 square at F6 × "
                                            "level 1 = 1; king bonus 5; +1 as no two players share a score → +11 "
                                            "(score 11)")
    seats = [{"display_name": "Ada"}, {"display_name": "Bob"}]
    assert outcome_words([1], [9, 18], 0, seats) == "Bob wins with 18 points."
    assert outcome_words([1], [9, 18], 1, seats) == "You win with 18 points."
    assert outcome_words([1], [0, 1], None, None) == "Seat 1 wins with 1 point."
    assert outcome_words([0, 1], [3, 3], 1, seats) == "A tie for first place between Ada and you with 3 points each."
