"""A portal names its seats ("Ada", "Bob"): every place the game view names a seat says that name -- the final
box, the clock, a seat's cards -- and German counts take their plural ("Burg mit 1 Feld", "mit 2 Feldern"). In
Chromium through Playwright, against the `make run` stack."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest

from .conftest import Console
from .games import ApiGame
from .pages import settled

pytestmark = pytest.mark.timeout(120)

SEATS = [{"kind": "human", "player_id": "ada", "display_name": "Ada"},
         {"kind": "human", "player_id": "bob", "display_name": "Bob"}]


def test_seats_are_named_by_their_display_names_and_german_counts_agree(stack: dict[str, str], new_page: Any,
                                                                        console: Console) -> None:
    game = ApiGame(stack, SEATS, clock={"turn_seconds": 600})
    to_move = game.set_up()
    watcher = 1 - to_move  # the other seat's page: it names the seat to move
    page = new_page()
    page.goto(game.url(stack, watcher) + "&lang=de")
    page.wait_for_selector("svg.board")
    settled(page)
    names = ["Ada", "Bob"]
    turn = page.inner_text("#turn")
    assert re.search(rf"Uhr: \d+ s übrig für {names[to_move]}\b", turn), turn
    assert "Platz" not in turn, turn
    assert page.locator(f"ul.hand[aria-label='Karten von {names[watcher]}']").count() == 1
    # after setup every knight stands on a foundation: a castle of one square, "1 Feld", never "1 Feldern"
    preview = page.inner_text("#preview")
    assert re.search(r"Burg mit 1 Feld bei [A-H][1-8] × Ebene 1 = 1", preview), preview
    assert not re.search(r"\b1 Feldern\b", preview), preview
    # the lobby's list of this browser's games names the seat to move too
    page.goto(stack["play"])
    page.wait_for_function("n => document.querySelector('#my-games')?.textContent.includes(n + ' to move')",
                           arg=names[to_move])
    page.goto(game.url(stack, watcher) + "&lang=de")
    page.wait_for_selector("svg.board")
    # the seat to move gives up: the other one wins, by name, in the final box
    resigned = httpx.post(f"{stack['game']}/v1/games/{game.id}/resign", json={"seat": to_move},
                          headers=game.auth(to_move), timeout=15)
    assert resigned.status_code == 201, resigned.text
    page.wait_for_selector("#final")
    final = page.inner_text("#final")
    score = game.summary()["scores"][watcher]
    assert "Du gewinnst mit" in final, final
    other = new_page()
    other.goto(game.url(stack, to_move))  # the loser's page, in English
    other.wait_for_selector("#final")
    final = other.inner_text("#final")
    points = "point" if score == 1 else "points"
    assert f"{names[watcher]} wins with {score} {points}." in final, final
    assert "Seat" not in final, final
    assert console.unexpected() == []


def test_plural_forms_in_both_languages(stack: dict[str, str], new_page: Any, console: Console) -> None:
    """Each string that counts something has a form for one and for many in both languages, and `t` picks it."""
    page = new_page()
    page.goto(stack["play"])
    said = page.evaluate("""async () => {
        const { setLanguage, t } = await import('./js/strings.js');
        const out = [];
        for (const lang of ['de', 'en']) {
          setLanguage(lang);
          for (const n of [1, 2]) {
            out.push(t('preview.castle', { area: n, at: 'C3', level: 1, points: n }));
            out.push(t('stacks.option', { n: 1, blocks: n }));
            out.push(t('outcome.win-seat', { name: 'Ada', points: n }));
          }
        }
        setLanguage('en');
        return out;
    }""")
    assert said == [
        "Burg mit 1 Feld bei C3 × Ebene 1 = 1", "Stapel 1 (1 Baustein)", "Ada gewinnt mit 1 Punkt.",
        "Burg mit 2 Feldern bei C3 × Ebene 1 = 2", "Stapel 1 (2 Bausteine)", "Ada gewinnt mit 2 Punkten.",
        "castle of 1 square at C3 × level 1 = 1", "stack 1 (1 block)", "Ada wins with 1 point.",
        "castle of 2 squares at C3 × level 1 = 2", "stack 1 (2 blocks)", "Ada wins with 2 points.",
    ]
    assert console.unexpected() == []
