"""A complete 4-player master game with action cards, the page's seat played by keyboard only (Tab and
Shift+Tab to a control; in the board grid Ctrl+Home, then the arrow keys; Enter), the three other seats the
service's AI. No mouse event reaches the page; after every action the focus is inside the game, never on <body>."""

from __future__ import annotations

import time
from typing import Any

import pytest

from .axe_scan import serious_violations
from .conftest import Console
from .games import ApiGame

pytestmark = pytest.mark.timeout(240)

#: The tab stops are few (one for the whole board): no control is further than this many presses.
MAX_TABS = 80


def main_data(page: Any) -> dict[str, str]:
    return page.evaluate("() => ({...document.querySelector('main').dataset})")


def tab_to(page: Any, selector: str) -> None:
    """Press Tab (or Shift+Tab, whichever way the element lies in the document) until it has the focus."""
    after = page.evaluate("""s => {
        const target = document.querySelector(s), at = document.activeElement;
        return !at || at === document.body
          || Boolean(at.compareDocumentPosition(target) & Node.DOCUMENT_POSITION_FOLLOWING); }""", selector)
    key = "Tab" if after else "Shift+Tab"
    for _ in range(MAX_TABS):
        if page.evaluate("s => document.activeElement === document.querySelector(s)", selector):
            return
        page.keyboard.press(key)
    raise AssertionError(f"{selector} not reached by {key}")


def to_square(page: Any, square: str) -> None:
    """Into the board (its one tab stop), to A1 by the grid's Ctrl+Home, then by arrow keys to ``square``."""
    if page.evaluate("() => document.activeElement?.dataset?.square === undefined"):
        tab_to(page, "svg.board [data-square][tabindex='0']")
    page.keyboard.press("Control+Home")
    for _ in range("ABCDEFGH".index(square[0])):
        page.keyboard.press("ArrowRight")
    for _ in range(int(square[1]) - 1):
        page.keyboard.press("ArrowDown")
    assert page.evaluate("() => document.activeElement.dataset.square") == square


def press_and_wait(page: Any, key: str = "Enter") -> None:
    """Press a key on the focused control; if that submitted an action, wait for the version it made (or a
    refusal); if it only chose something, for the choice to show."""
    before = main_data(page)
    page.keyboard.press(key)
    page.wait_for_function(
        """b => { const m = document.querySelector('main');
                  return m.dataset.busy === '0' && (m.dataset.version !== b.version || m.dataset.refusals !== b.refusals
                    || document.querySelector('.square.selected, .chooser, button.card.selected')); }""",
        arg=before)
    focus = page.evaluate("() => ({tag: document.activeElement.tagName,"
                          " inMain: document.querySelector('main').contains(document.activeElement)})")
    assert focus["tag"] != "BODY" and focus["inMain"], focus  # the keyboard goes on from inside the game


def first_target(page: Any, text: str | None = None) -> str | None:
    """The first board square offering an action (whose spoken name holds ``text``, if given)."""
    selector = "svg.board g.square.target" + (f"[aria-label*='{text}']" if text else "")
    return page.evaluate("s => document.querySelector(s)?.dataset.square ?? null", selector)


def act_on_square(page: Any, square: str) -> None:
    to_square(page, square)
    press_and_wait(page)


def test_a_four_player_master_game_by_keyboard_only(stack: dict[str, str], new_page: Any, console: Console) -> None:
    ai = {"kind": "ai", "level": "easy"}
    game = ApiGame(stack, [{"kind": "human", "player_id": "keys"}, ai, ai, ai], master=True)
    page = new_page()
    # the AI seats' turns shown at once, as in the other whole-game tests: played back at 400 ms an action (the
    # playback is test_readable.py's), three AI turns could outlast a keypress's wait
    page.emulate_media(reduced_motion="reduce")
    mouse: list[str] = []
    page.expose_function("sawMouse", lambda kind: mouse.append(kind))
    page.add_init_script("for (const kind of ['mousedown', 'click', 'pointerdown']) document.addEventListener(kind,"
                         " (e) => { if (e.detail > 0 || e.pointerType) window.sawMouse(kind); }, true);")
    page.goto(game.url(stack, 0))
    page.wait_for_selector("svg.board")
    counts = {"actions": 0, "cards": 0, "turns": 0}
    played: set[str] = set()
    built = 0
    previewed = False
    started = time.monotonic()
    while time.monotonic() - started < 200:
        page.wait_for_function("""() => { const m = document.querySelector('main');
            return m.dataset.busy === '0' && (m.dataset.turn === 'over' || (m.dataset.turn === 'mine'
              && document.querySelector('#end-turn, svg.board g.square.target, .controls .buttons button'))); }""",
                               timeout=60_000)
        state = main_data(page)
        if state["turn"] == "over":
            break
        counts["actions"] += 1
        if state["stage"] == "turn" and not previewed:  # the coming scoring, for all four seats
            assert page.locator("#preview li").count() == 4
            previewed = True
        card = page.evaluate("() => document.querySelector('#seats button.card')?.dataset.card ?? null")
        selected = page.evaluate("() => document.querySelector('#seats button.card.selected')?.dataset.card ?? null")
        if page.locator(".chooser").count():  # several actions on one square: the chooser has the focus
            tab_to(page, ".chooser button:not(.secondary)")
            press_and_wait(page)
        elif page.locator(".controls .buttons button", has_text="Leave the king").count():
            tab_to(page, ".controls .buttons button")
            press_and_wait(page)
        elif state["stage"] != "turn":  # setup placements, the king's move
            act_on_square(page, first_target(page) or "")
        elif selected:  # the card's target(s) on the board: a knight first where it moves one
            act_on_square(page, first_target(page) or "")
            if page.locator(".square.selected").count():
                act_on_square(page, first_target(page) or "")
        elif card:  # one card a turn while one is playable: then no card button is left
            counts["cards"] += 1
            played.add(card)
            tab_to(page, f"#seats button.card[data-card='{card}']")
            press_and_wait(page)  # selects it (or plays it at once: the AP cards)
        elif built < 2 and first_target(page):
            act_on_square(page, first_target(page, "Build") or first_target(page) or "")
            if page.locator(".square.selected").count():  # a knight: now its destination
                act_on_square(page, first_target(page) or "")
            built += 1
        else:
            tab_to(page, "#end-turn")
            press_and_wait(page)
            built = 0
            counts["turns"] += 1
        assert page.locator("#alert").is_hidden(), page.inner_text("#alert")
    else:
        raise AssertionError(f"the game did not end in time: {counts}")
    elapsed = time.monotonic() - started
    summary = game.summary()
    assert summary["status"] == "over" and summary["stage"] == "over"
    assert counts["turns"] >= 10, counts  # every round of the three phases
    events = game.http.get(f"/v1/games/{game.id}/events?limit=1000").json()["events"]  # all public once over
    cards = [e["payload"]["action"]["card"] for e in events if e["type"] == "action_applied"
             and e["payload"]["seat"] == 0 and e["payload"]["action"]["type"] == "play_card"]
    assert len(set(cards)) >= 5, cards  # action cards of five kinds or more, played by keyboard
    assert page.locator("#final").is_visible()
    assert serious_violations(page) == []  # the final score too (axe-core)
    assert mouse == []  # not one mouse event on the page
    print(f"keyboard-only 4-player master game: {counts}, {len(played)} card kinds, {elapsed:.1f} s")
    assert console.unexpected() == []
