"""The post-game analysis in the replay: the link a portal sends (``&analysis=quick``) asks for it and shows the curve,
the table of the curve and the marked turns; "show the better turn" plays that turn out on the board, by keyboard; axe
finds nothing serious; a running game's replay offers no analysis (the server refuses it too).

Set TORRES_WEB_SCREENSHOTS=docs/images to rewrite docs/images/replay-analysis.png."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest

from .axe_scan import serious_violations
from .conftest import Console
from .games import ApiGame

pytestmark = pytest.mark.timeout(240)
SHOTS = os.environ.get("TORRES_WEB_SCREENSHOTS")

TWO_HUMANS = [{"kind": "human", "player_id": "p0"}, {"kind": "human", "player_id": "p1"}]
BOTS = [{"kind": "ai", "level": "medium"}, {"kind": "ai", "level": "easy"}]  # easy's turns leave much to mark


def finished(stack: dict[str, str]) -> ApiGame:
    """A game of the stack's in-process AI seats, played to its end."""
    game = ApiGame(stack, BOTS)
    deadline = time.monotonic() + 120
    while game.summary()["status"] != "over":
        assert time.monotonic() < deadline, "the AI game did not end in 2 minutes"
        time.sleep(0.5)
    return game


def test_the_replay_shows_the_analysis_and_plays_a_better_turn_by_keyboard(stack: dict[str, str], new_page: Any,
                                                                           console: Console, tmp_path: Path) -> None:
    game = finished(stack)
    page = new_page()
    page.goto(f"{stack['game']}/play/#game={game.id}&replay=1&analysis=quick")
    page.wait_for_selector("#analysis-curve", timeout=120_000)
    assert "ready" in page.locator("#analysis-status").inner_text()
    marked = page.locator("#marked-turns li")
    assert marked.count() >= 1
    first = marked.first
    assert "lost" in first.inner_text() and "Better:" in first.inner_text()
    label = page.locator("#analysis-curve").get_attribute("aria-label") or ""
    assert "Expected final score share" in label and "Marked turns" in label
    rows = page.locator(".analysis-table tbody tr")
    assert rows.count() >= 20 and page.locator(".analysis-table tbody tr.marked").count() == marked.count()
    assert serious_violations(page) == []

    # Keyboard only: focus the first "Show the better turn" and press Enter.
    button = first.locator("button.show-better")
    button.focus()
    page.keyboard.press("Enter")
    page.wait_for_function("() => /^Better turn \\d+, action \\d+ of \\d+: /.test(document.getElementById('step')"
                           ".textContent)")
    page.wait_for_function("() => document.activeElement?.id === 'analysis-back'", timeout=30_000)
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.locator("#analysis").scroll_into_view_if_needed()
    page.screenshot(path=str(Path(SHOTS or tmp_path) / "replay-analysis.png"))
    steps = page.locator("#step").inner_text()
    assert steps.split(": ", 1)[1]  # the last action in the web client's words
    assert serious_violations(page) == []
    page.keyboard.press("Enter")  # back to the game as played
    page.wait_for_function("() => !document.getElementById('analysis-back')")
    page.wait_for_function("() => /^version \\d+ of \\d+$/.test(document.getElementById('at').textContent)")
    assert console.unexpected() == []


def test_a_running_games_replay_offers_no_analysis(stack: dict[str, str], new_page: Any, console: Console) -> None:
    game = ApiGame(stack, TWO_HUMANS)
    game.set_up()
    page = new_page()
    page.goto(f"{stack['game']}/play/#game={game.id}&replay=1&analysis=quick")
    page.wait_for_selector("#analysis")
    page.wait_for_function("() => document.getElementById('analysis').textContent.includes('once the game is over')")
    assert page.locator("#analyse").count() == 0
    refused = game.http.post(f"/v1/games/{game.id}/analysis", json={"depth": "quick"})
    assert refused.status_code == 409 and refused.json()["code"] == "game_running"
    assert console.unexpected() == []
