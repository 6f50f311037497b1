"""The embeddable client in Chromium: a portal's page on another origin embeds
`/play/#game=…&token=…&embed=1&lang=de` in an iframe, the player plays by clicks in it, and the page hears of turns,
moves and the end through postMessage; the strings table and the German view; theming; who may frame `/play/`.

Set TORRES_WEB_SCREENSHOTS=docs/images to rewrite docs/images/embedded-de.png.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from game_http import play_first_legal

import torres_rules as tr
from torres_rules.names import ACTION_TYPES, STAGES

from .conftest import Console, host_server
from .pages import click_and_wait, settled

SHOTS = os.environ.get("TORRES_WEB_SCREENSHOTS")
SERVICE = {"X-API-Key": "web-test-service-key"}

pytestmark = pytest.mark.timeout(180)


def new_game(stack: dict[str, str]) -> dict[str, Any]:
    """What a portal's server does: the game created with the service key, one seat token per player."""
    created = httpx.post(f"{stack['game']}/v1/games", headers=SERVICE, json={"seats": [
        {"kind": "human", "player_id": "alice", "display_name": "Alice"},
        {"kind": "human", "player_id": "bob", "display_name": "Bob"}]})
    assert created.status_code == 201, created.text
    return created.json()


def embed_url(stack: dict[str, str], game: dict[str, Any], seat: int, extra: str = "") -> str:
    return (f"{stack['game']}/play/#game={game['game_id']}&token={game['seats'][seat]['token']}&embed=1{extra}")


def open_host(page: Any, host_origin: str, url: str) -> Any:
    """The portal's page with the client in its iframe; the iframe's frame once the game is on it."""
    page.goto(f"{host_origin}/host.html#{quote(url, safe='')}")
    page.wait_for_function("() => document.getElementById('game').contentWindow !== null")
    frame = next(f for f in page.frames if "/play/" in f.url)
    frame.wait_for_selector("svg.board")
    settled(frame)
    return frame


def messages(page: Any, kind: str | None = None) -> list[dict[str, Any]]:
    got = page.evaluate("() => window.messages")
    return [m for m in got if kind is None or m["data"]["type"] == kind]


def wait_for_message(page: Any, kind: str, count: int, timeout: float = 15) -> list[dict[str, Any]]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = messages(page, kind)
        if len(got) >= count:
            return got
        page.wait_for_timeout(100)
    raise AssertionError(f"fewer than {count} {kind!r} messages: {messages(page)}")


def click_target(frame: Any, selector: str = "svg.board g.square.target") -> None:
    """Click the first offered square (or control) on a settled page and wait for the next version."""
    settled(frame)
    version = frame.evaluate("() => document.querySelector('main').dataset.version")
    frame.locator(selector).first.click()
    frame.wait_for_function("v => { const m = document.querySelector('main');"
                            " return m.dataset.busy === '0' && m.dataset.version !== v; }", arg=version)


def english_fragments(frame: Any) -> list[str]:
    """The words of the table's English strings (the parts between `{…}`) that no German string holds too."""
    return frame.evaluate("""async () => {
        const { STRINGS } = await import('./js/strings.js');
        const forms = (text) => (typeof text === 'string' ? [text] : Object.values(text));  // plural forms
        const german = Object.values(STRINGS).flatMap((s) => forms(s.de)).join('\\n');
        const out = new Set();
        for (const s of Object.values(STRINGS)) {
          for (const part of forms(s.en).flatMap((text) => text.split(/\\{\\w+\\}/))) {
            const words = part.trim().replace(/^[·:;,.()\\s]+|[·:;,.()…\\s]+$/g, '');
            if (words.length >= 4 && /[a-z]{3}/i.test(words) && !german.includes(words)) out.add(words);
          }
        }
        return [...out];
    }""")


def assert_no_english(frame: Any) -> None:
    """Neither the visible text nor what a screen reader says (aria-label, the square names) holds English."""
    shown = frame.locator("body").inner_text()
    labels = "\n".join(frame.eval_on_selector_all("[aria-label]", "els => els.map(e => e.getAttribute('aria-label'))"))
    found = [words for words in english_fragments(frame) if words in shown or words in labels]
    assert found == [], f"English on the German page: {found}\n{shown}\n{labels}"


def test_every_string_has_english_and_german_and_covers_the_game(stack: dict[str, str], new_page: Any,
                                                                 console: Console) -> None:
    """The one table: every key in both languages with the same `{…}` slots; every card, master card, action
    and stage of the rules has its words."""
    page = new_page()
    page.goto(stack["play"])
    table = page.evaluate("async () => (await import('./js/strings.js')).STRINGS")
    assert len(table) > 100
    for key, entry in table.items():
        counted = entry.pop("count", None)  # a string with plural forms: the same forms in both languages
        assert set(entry) == {"en", "de"}, key
        forms = [(entry["en"], entry["de"])] if counted is None else [
            (entry["en"][form], entry["de"][form]) for form in ("one", "other")]
        if counted is not None:
            assert set(entry["en"]) == set(entry["de"]) == {"one", "other"}, key
            assert f"{{{counted}}}" in entry["en"]["other"] and f"{{{counted}}}" in entry["de"]["other"], key
        for en, de in forms:
            assert en.strip() and de.strip(), key
            assert sorted(re.findall(r"\{\w+\}", en)) == sorted(re.findall(r"\{\w+\}", de)), key
    for card in tr.CARD_KINDS:
        assert f"card.{card}" in table and f"card.{card}.effect" in table, card
    for card in tr.MASTER_CARDS:
        assert f"master.{card}" in table, card
    for action in ACTION_TYPES:
        assert f"do.{action}" in table and f"log.{action}" in table, action
    assert {f"stage.{s}" for s in STAGES} <= set(table)
    # embedded without a game: it says so (in German when asked) and shows no lobby, nor after the fragment changes
    page.goto(stack["play"].split("#")[0] + "#embed=1&lang=de")
    page.wait_for_function("() => document.getElementById('alert').textContent.startsWith('Kein Spiel zu zeigen')")
    page.evaluate("() => { location.hash = ''; }")
    page.wait_for_timeout(300)
    assert page.locator("header, nav, .lobby, #new-game, a").count() == 0
    # a refusal in German: the code's own words (the server's detail is English), with status and code
    said = page.evaluate("""async () => {
        const { setLanguage } = await import('./js/strings.js');
        const { refusalWords } = await import('./js/words.js');
        setLanguage('de');
        const words = [refusalWords({ status: 422, code: 'illegal_action', message: 'not legal: …' }, 'de'),
                       refusalWords({ status: 401, code: 'seat_token_expired', message: '…' }, 'de')];
        setLanguage('en');
        return words;
    }""")
    assert said == ["Dieser Zug ist nicht erlaubt [422 illegal_action]",
                    "Der Link ist (nicht mehr) gültig [401 seat_token_expired]"]
    assert console.unexpected() == []


def test_a_portal_embeds_the_game_in_german_and_hears_turns_moves_and_the_end(
        stack: dict[str, str], portal: str, new_page: Any, console: Console, tmp_path: Path) -> None:
    game = new_game(stack)
    gid, tokens = game["game_id"], [s["token"] for s in game["seats"]]
    api = httpx.Client(base_url=stack["game"])
    page = new_page()
    frame = open_host(page, portal, embed_url(stack, game, 0, f"&lang=de&origin={quote(portal, safe='')}"))

    # the game only: no lobby, no navigation, no link anywhere; the page in German
    assert frame.locator("header, nav, .lobby, #new-game, a").count() == 0
    assert frame.evaluate("() => document.documentElement.lang") == "de"
    assert "Spielzüge" in frame.inner_text("main") and "Zählleiste" in frame.inner_text("main")
    first = wait_for_message(page, "turn", 1)[0]
    assert first["origin"] == stack["game"]
    assert first["data"] == {"source": "torres", "type": "turn", "game_id": gid, "version": 1, "seat": 0,
                             "mine": True, "stage": "setup", "phase": 1, "round": 1}
    assert_no_english(frame)

    # Alice places her first knight by a click in the iframe: a move and the turn passing to Bob
    click_target(frame)
    move = wait_for_message(page, "move", 1)[0]["data"]
    assert move["seat"] == 0 and move["action"]["type"] == "place_start_knight" and move["game_id"] == gid
    assert move["text"] == f"setzt den ersten Ritter auf {move['action']['at']}" and move["version"] == 2
    turns = wait_for_message(page, "turn", 2)
    assert turns[1]["data"]["seat"] == 1 and turns[1]["data"]["mine"] is False

    # Bob plays from elsewhere (the API) until it is Alice's turn again (he may place the king too): the portal
    # hears of each of his moves, and of the turn coming back
    bob_moves = 0
    while api.get(f"/v1/games/{gid}", headers={"Authorization": f"Bearer {tokens[1]}"}).json()["to_move"] == 1:
        bob_moves += 1
        play_first_legal(api, gid, tokens, f"bob-{bob_moves}")
    moves = wait_for_message(page, "move", 1 + bob_moves)
    assert [m["data"]["seat"] for m in moves] == [0] + [1] * bob_moves
    assert moves[1]["data"]["action"]["type"] == "place_start_knight"
    assert [m["data"]["version"] for m in moves] == list(range(2, 3 + bob_moves))
    turns = wait_for_message(page, "turn", 3)
    assert len(turns) == 3 and turns[2]["data"]["seat"] == 0 and turns[2]["data"]["mine"] is True
    frame.wait_for_function("() => document.querySelector('main').dataset.turn === 'mine'")
    # her first turn: a block built where the board offers one, then the turn ended with the German button
    click_target(frame, "svg.board g.square.target[aria-label*='Baustein']")
    click_target(frame, "button#end-turn:has-text('Zug beenden')")
    moves = wait_for_message(page, "move", 3 + bob_moves)
    assert [m["data"]["action"]["type"] for m in moves[-2:]] == ["build", "end_turn"]
    assert moves[-1]["data"]["text"] == "beendet den Zug"
    settled(frame)
    for name in ("Alice", "Bob"):  # the portal's names in the log, over their turns
        turns = frame.locator("#log .turn-group", has=frame.locator(".turn-head", has_text=name))
        assert turns.locator("li", has_text="setzt den ersten Ritter auf").count() == 1
    assert_no_english(frame)
    folder = Path(SHOTS) if SHOTS else tmp_path
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / "embedded-de.png"))

    # Bob gives up (his portal, with his seat token): the game ends, and the portal hears the result
    resigned = api.post(f"/v1/games/{gid}/resign", json={"seat": 1},
                        headers={"Authorization": f"Bearer {tokens[1]}"})
    assert resigned.status_code == 201, resigned.text
    over = wait_for_message(page, "game-over", 1)[0]["data"]
    summary = api.get(f"/v1/games/{gid}", headers={"Authorization": f"Bearer {tokens[0]}"}).json()
    assert over["scores"] == summary["scores"] and over["winners"] == [0] and over["reason"] == "forfeit"
    assert over["ranks"] == [0, 1] and over["rated"] is True and over["game_id"] == gid
    frame.wait_for_selector("#final")
    assert "Endwertung" in frame.inner_text("#final") and "Du gewinnst" in frame.inner_text("#final")
    assert_no_english(frame)

    # every message has the documented shape; no kept card or seed in any of them, and only to the portal
    for m in messages(page):
        assert m["origin"] == stack["game"] and m["data"]["source"] == "torres" and m["data"]["game_id"] == gid
        assert "seed" not in m["data"] and "salt" not in str(m["data"])
    assert len(messages(page, "game-over")) == 1
    assert console.unexpected() == []


def test_a_whole_game_embedded_in_german_against_the_ai(stack: dict[str, str], portal: str, new_page: Any,
                                                        console: Console) -> None:
    """Every stage of a game in the German view (setup, turns, keeping a card, playing one, the king's move,
    the scorings, the end) by clicks on German buttons, no English string of the table on the page at any new
    stage; then the portal's `game-over` message says the final scores, `completed`."""
    created = httpx.post(f"{stack['game']}/v1/games", headers=SERVICE, json={"seats": [
        {"kind": "human", "player_id": "alice", "display_name": "Alice"}, {"kind": "ai", "level": "easy"}]})
    assert created.status_code == 201, created.text
    game = created.json()
    page = new_page()
    # the AI's turns shown at once: their playback (400 ms an action, test_readable.py) would double this test
    page.emulate_media(reduced_motion="reduce")
    frame = open_host(page, portal, embed_url(stack, game, 0, f"&lang=de&origin={quote(portal, safe='')}"))
    checked: set[tuple[str, ...]] = set()
    acted, bought = 0, 0
    deadline = time.monotonic() + 150
    while time.monotonic() < deadline:
        frame.wait_for_function("""() => { const m = document.querySelector('main');
            return m.dataset.busy === '0' && (m.dataset.turn === 'mine' || m.dataset.turn === 'over'); }""",
                                timeout=60_000)
        state = frame.evaluate("() => ({...document.querySelector('main').dataset})")
        chooser = frame.locator(".chooser button:not(.secondary)")
        moment = (state["stage"], state["phase"], str(chooser.count() > 0),
                  str(frame.locator("#seats button.card.selected").count() > 0))
        if moment not in checked:
            checked.add(moment)
            assert_no_english(frame)
        if state["turn"] == "over":
            break
        special = frame.locator(".controls .buttons button, #keep-confirm",
                                has_text=re.compile(r"behalten|^Den König stehen lassen"))
        targets = frame.locator("svg.board g.square.target")
        buy = frame.locator(".controls .buttons button", has_text="Eine Aktionskarte kaufen")
        card = frame.locator("#seats button.card:not(.selected)")
        if chooser.count():
            click_and_wait(frame, chooser.first)
        elif special.count():
            click_and_wait(frame, special.first)
        elif card.count() and not frame.locator("#seats button.card.selected").count():
            click_and_wait(frame, card.first)
        elif buy.count() and acted == 0 and bought < 2 and state["phase"] != "3":
            bought += 1
            acted += 1
            click_and_wait(frame, buy.first)
        elif state["stage"] != "turn" and targets.count():
            click_and_wait(frame, targets.first)
        elif frame.locator("#seats button.card.selected").count():
            click_and_wait(frame, targets.first)
            if frame.locator(".square.selected").count():
                click_and_wait(frame, frame.locator("svg.board g.square.target").first)
        elif acted < 2 and targets.count():
            click_and_wait(frame, targets.first)
            if frame.locator(".square.selected").count():
                click_and_wait(frame, frame.locator("svg.board g.square.target").first)
            acted += 1
        else:
            click_and_wait(frame, frame.locator("#end-turn"))
            acted = 0
        assert frame.locator("#alert").is_hidden(), frame.inner_text("#alert")
    else:
        raise AssertionError("the game did not end in time")
    assert {m[0] for m in checked} >= {"setup", "turn", "keep_card", "over"}, checked
    log = frame.inner_text("#log")
    assert re.search(r"(zieht den König auf|lässt den König stehen)", log) and "Spielende: Punkte" in log, log
    over = wait_for_message(page, "game-over", 1)[0]["data"]
    summary = httpx.get(f"{stack['game']}/v1/games/{game['game_id']}").json()
    assert over["reason"] == "completed" and over["scores"] == summary["scores"] and over["rated"] is True
    assert "Endwertung" in frame.inner_text("#final")
    kept = [m["data"] for m in messages(page, "move") if m["data"]["action"]["type"] == "keep_card"]
    assert kept and all(m["action"] == {"type": "keep_card"} for m in kept)  # her own kept cards stay unnamed
    assert all(m["text"] == "behält eine Aktionskarte" for m in kept)
    assert console.unexpected() == []


def test_the_host_chooses_english_and_a_theme(stack: dict[str, str], portal: str, new_page: Any,
                                              console: Console) -> None:
    """`lang=en` and `theme=`: a board colour and the radius change the rendering; a value that could load
    something is ignored. Messages go to the embedding page's origin when no `origin=` is given."""
    game = new_game(stack)
    theme = quote("height-0:rgb(10, 20, 30);radius:0px;paper:url(http://evil.example/x.png)", safe="")
    page = new_page()
    frame = open_host(page, portal, embed_url(stack, game, 0, f"&lang=en&theme={theme}"))
    assert frame.evaluate("() => document.documentElement.lang") == "en"
    assert "Moves" in frame.inner_text("main") and "Score track" in frame.inner_text("main")
    shown = frame.inner_text("body")  # the German page's check would see this one (it is no empty test)
    assert len([words for words in english_fragments(frame) if words in shown]) >= 5
    fill = frame.evaluate("() => getComputedStyle(document.querySelector('svg.board rect.cell.h0')).fill")
    assert fill == "rgb(10, 20, 30)"
    assert frame.evaluate("() => getComputedStyle(document.querySelector('.controls')).borderTopLeftRadius") == "0px"
    assert frame.evaluate("() => getComputedStyle(document.documentElement).getPropertyValue('--paper').trim()") \
        == "#fbfaf7"  # the url() was not taken
    # a property set later (a portal's own stylesheet would do the same) changes the board at once
    frame.evaluate("() => document.documentElement.style.setProperty('--height-0', 'rgb(200, 0, 0)')")
    assert frame.evaluate("() => getComputedStyle(document.querySelector('rect.cell.h0')).fill") == "rgb(200, 0, 0)"
    turn = wait_for_message(page, "turn", 1)[0]
    assert turn["origin"] == stack["game"] and turn["data"]["mine"] is True
    assert console.unexpected() == []


def test_a_page_of_an_unlisted_origin_cannot_frame_the_client(stack: dict[str, str], new_page: Any,
                                                              console: Console, tmp_path: Path) -> None:
    """The attacker's page (an origin not in TORRES_FRAME_ANCESTORS) embeds a real game link: the browser
    refuses to show it, so nobody can be tricked into clicking moves on a hidden board."""
    game = new_game(stack)
    with host_server(tmp_path) as attacker:
        page = new_page()
        page.goto(f"{attacker}/host.html#{quote(embed_url(stack, game, 0), safe='')}")
        page.wait_for_timeout(2000)
        loaded = [f for f in page.frames if f != page.main_frame and f.url.startswith(stack["game"])]
        for frame in loaded:  # Chromium leaves an error page, never the client
            assert frame.evaluate("() => !document.querySelector('main#main')")
        assert page.evaluate("() => window.messages") == []
    assert any("frame-ancestors" in e for e in console.errors), console.errors
