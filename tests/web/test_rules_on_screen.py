"""Rules on screen, in Chromium: each card's effect in the hand, keeping a card as three tiles (not 12
permutation buttons), each castle's base area on the board, and the coming phase scoring as the rules engine
computes it. Each test fails on the client before these were added."""

from __future__ import annotations

import re
from typing import Any

import pytest

from .conftest import Console
from .games import ApiGame, builds_first
from .pages import click_and_wait, settled

pytestmark = pytest.mark.timeout(120)

TWO_HUMANS = [{"kind": "human", "player_id": "p0"}, {"kind": "human", "player_id": "p1"}]


def open_game(new_page: Any, game: ApiGame, stack: dict[str, str], seat: int) -> Any:
    page = new_page()
    page.goto(game.url(stack, seat))
    page.wait_for_selector("svg.board")
    settled(page)
    return page


def test_the_hand_shows_what_each_card_does(stack: dict[str, str], new_page: Any, console: Console) -> None:
    """A master game deals every card: each one in the reader's hand says its effect on screen, the same words as its
    tooltip, and no two cards say the same; the master card's effect is the turn line's tooltip."""
    game = ApiGame(stack, TWO_HUMANS, master=True)
    page = open_game(new_page, game, stack, 0)
    hand = game.view(0)["view"]["hand"]
    assert len(hand) == 10
    cards = page.locator("#seats [data-card]")
    assert sorted(cards.evaluate_all("els => els.map(e => e.dataset.card)")) == sorted(hand)
    effects = cards.evaluate_all("""els => els.map(e => {
        const effect = e.querySelector('.effect');
        return {title: e.title, effect: effect && effect.checkVisibility() ? effect.textContent : null}; })""")
    assert all(e["effect"] and e["effect"] == e["title"] for e in effects), effects
    assert len({e["effect"] for e in effects}) == 10
    # the turn line names the master card; its effect is that line's tooltip, the words shown under it
    effect = page.get_attribute("#turn", "title")
    assert effect and page.inner_text("#master-card").endswith(f": {effect}")
    assert console.unexpected() == []


def test_keeping_a_card_is_three_tiles_with_order_and_top_or_bottom(stack: dict[str, str], new_page: Any,
                                                                     console: Console) -> None:
    """After a buy from a personal deck the three cards drawn are tiles (name, effect, "keep"), the other two are
    put in order with arrows and sent to the top or the bottom: one action in the wire form docs/rules-contract.md gives
    ({card, rest, order}), where the page had offered all 12 combinations as buttons."""
    game = ApiGame(stack, TWO_HUMANS)
    seat = game.set_up()
    page = open_game(new_page, game, stack, seat)
    click_and_wait(page, page.locator(".controls .buttons button", has_text="Buy an action card"))
    seen = game.view(seat)["view"]["seen"]
    assert len(seen) == 3
    tiles = page.locator(".keep-tile")
    assert tiles.count() == 3
    assert page.locator(".controls button", has_text=re.compile(r"^Keep .*; put")).count() == 1  # the one "confirm"
    for card in seen:
        assert page.locator(f".keep-tile[data-card='{card}'] .effect").inner_text()  # what each one does
    assert page.evaluate("() => document.activeElement.closest('.keep') !== null")  # the chooser took the focus

    page.click(f"#keep-{seen[1]}")  # keep the second card: the others go back as first, third
    assert page.locator(f".keep-tile[data-card='{seen[1]}']").get_attribute("class") == "keep-tile kept"
    page.click(f"#keep-{seen[0]}-down")  # the first one later: third, first
    assert page.locator(".keep-tile").evaluate_all("els => els.map(e => e.dataset.card)") == [seen[1], seen[2], seen[0]]
    page.check("#keep-rest-bottom")
    version = page.evaluate("() => document.querySelector('main').dataset.version")
    click_and_wait(page, page.locator("#keep-confirm"))
    assert page.evaluate("() => document.querySelector('main').dataset.version") != version
    assert page.locator("#alert").is_hidden(), page.inner_text("#alert")
    position = game.position()
    assert seen[1] in position["hands"][seat]
    assert position["decks"][seat][-2:] == [seen[2], seen[0]]  # under the deck, in the order set
    assert page.locator(".keep-tile").count() == 0
    assert console.unexpected() == []


def test_each_castle_shows_its_base_area(stack: dict[str, str], new_page: Any, console: Console) -> None:
    """The board tags each castle of the API's `castles` with its base area (RULES 6.1: area x level), and each
    castle square's spoken name says it."""
    game = ApiGame(stack, TWO_HUMANS)
    game.set_up()
    for _ in range(14):  # builds: castles grow and join
        game.act(builds_first)
    mover = game.summary()["to_move"]  # the seat to move: its page marks what the squares offer
    page = open_game(new_page, game, stack, mover)
    castles = game.view(mover)["castles"]
    assert any(castle["area"] > 1 for castle in castles)
    tags = page.locator("svg.board .castle-area")
    assert tags.count() == len(castles)
    for castle in castles:
        tag = page.locator(f".castle-area[data-castle-at='{castle['squares'][0]}']")
        assert tag.text_content() == str(castle["area"])
        for sq in castle["squares"]:
            label = page.get_attribute(f"[data-square='{sq}']", "aria-label") or ""
            assert f"castle of base area {castle['area']}" in label, label
    in_castles = {sq for castle in castles for sq in castle["squares"]}
    labels = page.eval_on_selector_all("[data-square]",
                                       "els => els.map(e => [e.dataset.square, e.getAttribute('aria-label')])")
    assert all(("castle of" in label) == (sq in in_castles) for sq, label in labels)
    # a tag covers nothing that says what a square offers, holds or is: the marks, the height, the figure, the stack
    covered = page.evaluate("""() => {
      const box = (e) => e.getBoundingClientRect();
      const meets = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
      const out = [];
      for (const tag of document.querySelectorAll('svg.board .castle-area rect')) {
        const sq = tag.parentNode.dataset.castleAt;
        const square = document.querySelector(`[data-square='${sq}']`);
        for (const part of square.querySelectorAll('.mark, text, .block, circle, rect.knight, polygon')) {
          if (meets(box(tag), box(part))) out.push(`${sq}: ${part.getAttribute('class')}`);
        }
      }
      return out;
    }""")
    assert covered == [], covered
    assert any(page.locator(f"[data-square='{c['squares'][0]}'] .mark").count() for c in castles), \
        "no castle's first square is marked: the overlap check saw no mark"
    assert console.unexpected() == []


def preview_on_page(page: Any) -> list[dict[str, str]]:
    return page.locator("#preview li").evaluate_all(
        "els => els.map(e => ({seat: e.dataset.seat, gained: e.dataset.gained, text: e.textContent}))")


def check_preview(page: Any, preview: dict[str, Any], castles: list[dict[str, Any]]) -> None:
    """The page's panel says the API's preview: its heading's phase, each seat's gain and score, each castle term."""
    assert page.locator("#preview h2").inner_text() == f"If phase {preview['phase']} ended now"
    shown = preview_on_page(page)
    assert [(int(s["seat"]), int(s["gained"])) for s in shown] == [(p["seat"], p["gained"]) for p in preview["seats"]]
    for line, part in zip(shown, preview["seats"], strict=True):
        assert line["text"].endswith(f"+{part['gained']} (score {part['score']})"), line
        for term in part["castles"]:
            squares = "square" if term["area"] == 1 else "squares"
            words = (f"castle of {term['area']} {squares} at {castles[term['castle']]['squares'][0]} × level "
                     f"{term['level']}")
            assert f"{words} = {term['points']}" in line["text"], (words, line)


def test_the_coming_scoring_is_shown_as_the_engine_computes_it(stack: dict[str, str], new_page: Any,
                                                              console: Console) -> None:
    """"If the phase ended now": the view's `preview` (the engine's own scoring) in words, for every seat, and
    again after each move (here another seat's, pushed to the page)."""
    game = ApiGame(stack, TWO_HUMANS)
    seat = game.set_up()
    page = open_game(new_page, game, stack, 1 - seat)
    view = game.view(1 - seat)
    assert view["preview"] and any(part["gained"] > 0 for part in view["preview"]["seats"])  # knights in castles
    check_preview(page, view["preview"], view["castles"])
    for _ in range(3):  # the other seat builds; the page follows it live
        version = game.view()["version"]
        game.act(builds_first)
        page.wait_for_function("v => Number(document.querySelector('main').dataset.version) > v", arg=version)
        settled(page)
        view = game.view(1 - seat)
        check_preview(page, view["preview"], view["castles"])
    assert console.unexpected() == []
