"""Accessibility in Chromium: the board follows the ARIA grid pattern (rows of gridcells, aria-selected,
arrow keys, Home/End), and an axe-core scan (axe-playwright-python, axe-core bundled in the pinned package) of the
lobby, a game in progress (a master game's hand and coming scoring; the keep-a-card tiles) and the replay finds no
serious or critical violation. Both fail on a client that lays the squares out as role=button in a group
(axe's findings there are in the commit that made the grid)."""

from __future__ import annotations

from typing import Any

import pytest

from .axe_scan import serious_violations
from .conftest import Console
from .games import ApiGame, builds_first
from .pages import click_and_wait, settled

pytestmark = pytest.mark.timeout(180)

TWO_HUMANS = [{"kind": "human", "player_id": "p0"}, {"kind": "human", "player_id": "p1"}]


def test_the_board_is_an_aria_grid(stack: dict[str, str], new_page: Any, console: Console) -> None:
    game = ApiGame(stack, TWO_HUMANS)
    seat = game.set_up()
    page = new_page()
    page.goto(game.url(stack, seat))
    page.wait_for_selector("svg.board g.square.target")
    settled(page)
    shape = page.evaluate("""() => {
        const grid = document.querySelector('svg.board');
        const rows = [...grid.querySelectorAll('[role=row]')];
        return {role: grid.getAttribute('role'), label: grid.getAttribute('aria-label'),
                rows: rows.map(r => [...r.children].filter(c => c.getAttribute('role') === 'gridcell')
                                                  .map(c => c.dataset.square).join(' ')),
                cells: grid.querySelectorAll('[role=gridcell]').length,
                unselected: grid.querySelectorAll('[role=gridcell][aria-selected=false]').length}; }""")
    assert shape["role"] == "grid" and shape["label"]
    assert shape["rows"] == [" ".join(f"{c}{r}" for c in "ABCDEFGH") for r in range(1, 9)]
    assert shape["cells"] == shape["unselected"] == 64  # nothing selected yet: every cell says so
    # select one of the seat's knights by keyboard: the cell says aria-selected
    knight = page.locator("svg.board g.square.target[aria-label*='your knight']").first
    knight.focus()
    square = knight.get_attribute("data-square")
    version = page.evaluate("() => document.querySelector('main').dataset.version")
    page.keyboard.press("Enter")
    page.wait_for_selector(f"[data-square='{square}'][aria-selected=true]")
    assert page.locator("[role=gridcell][aria-selected=true]").count() == 1
    assert page.evaluate("() => document.querySelector('main').dataset.version") == version  # a choice, not a move
    focused = page.evaluate("() => document.activeElement.dataset.square")
    assert focused == square  # the focus stays on the selected cell
    row = square[1]
    page.keyboard.press("Home")
    assert page.evaluate("() => document.activeElement.dataset.square") == f"A{row}"
    page.keyboard.press("End")
    assert page.evaluate("() => document.activeElement.dataset.square") == f"H{row}"
    page.keyboard.press("Control+Home")
    assert page.evaluate("() => document.activeElement.dataset.square") == "A1"
    page.keyboard.press("Control+End")
    assert page.evaluate("() => document.activeElement.dataset.square") == "H8"
    assert page.locator("svg.board [tabindex='0']").count() == 1  # still one tab stop
    assert console.unexpected() == []


def test_axe_finds_nothing_serious_in_the_lobby_the_game_and_the_replay(stack: dict[str, str], new_page: Any,
                                                                          console: Console) -> None:
    found: dict[str, list[str]] = {}
    page = new_page()
    page.goto(stack["play"])
    page.wait_for_selector("#find-match")
    found["lobby"] = serious_violations(page)

    master = ApiGame(stack, TWO_HUMANS, master=True)
    seat = master.set_up()
    page.goto(master.url(stack, seat))
    page.wait_for_selector("svg.board g.square.target")
    settled(page)
    assert page.locator("#preview li").count() == 2 and page.locator("#seats .effect").count() == 10
    found["game"] = serious_violations(page)
    knight = page.locator("svg.board g.square.target[aria-label*='your knight']").first
    click_and_wait(page, knight)  # a selected knight and its destinations
    found["game, knight selected"] = serious_violations(page)

    long = ApiGame(stack, TWO_HUMANS)  # a game some turns in: castles, a log longer than its box
    long.set_up()
    for _ in range(24):
        long.act(builds_first)
    seat = long.summary()["to_move"]
    page.goto(long.url(stack, seat))
    page.wait_for_selector("svg.board g.square.target")
    settled(page)
    assert page.evaluate("() => { const log = document.getElementById('log');"
                         " return log.scrollHeight > log.clientHeight; }")  # the log scrolls
    found["game some turns in"] = serious_violations(page)
    other = new_page()
    other.goto(long.url(stack, 1 - seat))  # the seat that waits
    other.wait_for_selector("svg.board")
    settled(other)
    found["game, waiting"] = serious_violations(other)
    other.set_viewport_size({"width": 390, "height": 844})
    found["game, waiting, on a phone"] = serious_violations(other)

    keeping = ApiGame(stack, TWO_HUMANS)
    seat = keeping.set_up()
    keeping.act(lambda actions: next(a for a in actions if a["type"] == "buy_card"))
    page.goto(keeping.url(stack, seat))
    page.wait_for_selector(".keep-tile")
    settled(page)
    found["keeping a card"] = serious_violations(page)

    page.goto(f"{stack['game']}/play/#game={master.id}&replay=1")
    page.wait_for_selector("svg.board")
    page.wait_for_function("() => document.querySelector('#verify, .badge-ok, .badge-bad') !== null")
    found["replay"] = serious_violations(page)
    assert {where: v for where, v in found.items() if v} == {}
    assert console.unexpected() == []
