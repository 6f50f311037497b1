"""The web client in a real browser (Chromium through Playwright), against the `make run` stack: people's
paths through it, by clicks and keys only.

Set TORRES_WEB_SCREENSHOTS=docs/images to (re)write the README's screenshots from these runs.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from game_http import play_first_legal

import torres_rules as tr

from .conftest import Console
from .pages import click_and_wait, set_up_by_clicks, settled

SHOTS = os.environ.get("TORRES_WEB_SCREENSHOTS")

pytestmark = pytest.mark.timeout(300)


def shot(page: Any, name: str, tmp_path: Path) -> None:
    folder = Path(SHOTS) if SHOTS else tmp_path
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / f"{name}.png"), full_page=True)


def board(page: Any) -> dict[str, str]:
    """Every square's accessible name, without what a click would do (the facts only)."""
    pairs = page.eval_on_selector_all(
        "svg.board g.square", "els => els.map(e => [e.dataset.square, e.getAttribute('aria-label')])")
    return {sq: re.match(r"[A-H][1-8], height \d+(, (blue|orange|green|purple) knight|, the king)?", label)[0]
            for sq, label in pairs}


def scores(page: Any) -> list[str]:
    return page.eval_on_selector_all("[data-score]", "els => els.map(e => e.textContent)")


def start_game_against_ai(page: Any, stack: dict[str, str]) -> None:
    page.goto(stack["play"])  # the address `make run` prints, with the service key in the fragment
    page.click("#start-game")  # default: 2 players, me against the easy AI
    page.wait_for_selector("svg.board")
    settled(page)


def play_to_the_end(page: Any, tmp_path: Path) -> dict[str, int]:
    """Play every turn of the browser's seat by clicks: setup squares, up to two board actions a turn (a build,
    a knight's move: knight then destination, a placement), the king's move or not, a kept card, end turn."""
    counts = {"submitted": 0, "turns": 0, "bought": 0, "played": 0}
    acted = 0
    mid_game_shot = False
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        page.wait_for_function("""() => { const m = document.querySelector('main');
            return m.dataset.busy === '0' && (m.dataset.turn === 'mine' || m.dataset.turn === 'over'); }""",
                               timeout=60_000)
        state = page.evaluate("() => ({...document.querySelector('main').dataset})")
        if state["turn"] == "over":
            return counts
        if state["phase"] == "2" and state["stage"] == "turn" and not mid_game_shot:
            shot(page, "board-mid-game", tmp_path)
            mid_game_shot = True
        chooser = page.locator(".chooser button:not(.secondary)")
        special = page.locator(".controls .buttons button, #keep-confirm",
                               has_text=re.compile(r"^(Keep|Leave the king)"))
        targets = page.locator("svg.board g.square.target")
        buy = page.locator(".controls .buttons button", has_text="Buy an action card")
        card = page.locator("#seats button.card:not(.selected)")
        if chooser.count():
            click_and_wait(page, chooser.first)
        elif special.count():
            click_and_wait(page, special.first)
        elif card.count() and not page.locator("#seats button.card.selected").count():
            counts["played"] += 1  # a card, then its target(s) on the board (or at once, for the AP cards)
            click_and_wait(page, card.first)
            continue
        elif buy.count() and acted == 0 and counts["bought"] < 2 and state["phase"] != "3":
            counts["bought"] += 1
            click_and_wait(page, buy.first)  # then "Keep …" (#keep-confirm under the tiles): one of the cards drawn
            acted += 1
        elif state["stage"] != "turn" and targets.count():
            click_and_wait(page, targets.first)
        elif page.locator("#seats button.card.selected").count():  # the chosen card's target(s)
            click_and_wait(page, targets.first)
            if page.locator(".square.selected").count():
                click_and_wait(page, page.locator("svg.board g.square.target").first)
        elif acted < 2 and targets.count():
            builds = page.locator("svg.board g.square.target[aria-label*='Build']")  # castles grow: a livelier board
            click_and_wait(page, builds.first if builds.count() else targets.first)
            if page.locator(".square.selected").count():  # a knight: now its destination
                click_and_wait(page, page.locator("svg.board g.square.target").first)
            acted += 1
        else:
            click_and_wait(page, page.locator("#end-turn"))
            acted = 0
            counts["turns"] += 1
        counts["submitted"] += 1
        assert page.locator("#alert").is_hidden(), page.inner_text("#alert")
    raise AssertionError("the game did not end in time")


def perimeter(squares: list[str]) -> int:
    """Sides of a castle's squares that face no other square of it (the edges its outline draws)."""
    inside = set(squares)
    return sum(f"{chr(ord(sq[0]) + dx)}{int(sq[1:]) + dy}" not in inside
               for sq in squares for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)))


def check_scoring_explained(page: Any, stack: dict[str, str], game_id: str, version: int, phase: int) -> None:
    """The page's explanation says exactly the rules engine's breakdown of that scoring: computed here from the
    positions before and after it (not taken from the response the page read), term by term and seat by seat."""
    def state(at: int) -> Any:
        body = httpx.get(f"{stack['game']}/v1/games/{game_id}/state?version={at}").json()
        return body, tr.from_position(body["position"])

    served, after = state(version)
    breakdown = tr.scored_between(state(version - 1)[1], after)
    assert breakdown is not None and breakdown["phase"] == phase
    assert served["scoring"] == breakdown and served["castles"] == tr.castles_of(after)
    assert page.inner_text("#scoring-explained h3") == f"Scoring of phase {phase}"
    # the board outlines the engine's castles: one edge per side of a castle square not shared with the castle
    perimeters = [perimeter(c["squares"]) for c in served["castles"]]
    assert page.locator("svg.board line.castle-edge").count() == sum(perimeters)
    assert page.locator("svg.board line.king-castle").count() == sum(
        p for p, c in zip(perimeters, served["castles"], strict=True) if c["king"])
    lines = page.locator("#scoring-explained li").all_inner_texts()
    assert len(lines) == after.players
    for line, part in zip(lines, breakdown["seats"], strict=True):
        terms = re.findall(r"castle of (\d+) squares? at \w+ × level (\d+) = (\d+)", line)
        shown = [tuple(int(n) for n in m) for m in terms]
        assert shown == [(c["area"], c["level"], c["points"]) for c in part["castles"]], line
        king = re.search(r"king bonus (\d+)", line)
        assert (int(king[1]) if king else 0) == part["king_bonus"], line
        master = re.search(r"master card [a-z ]+ (\d+)", line)
        assert (int(master[1]) if master else 0) == part["master_points"], line
        collision = re.search(r"\+(\d+) from the rule that no two players share a score", line)
        assert (int(collision[1]) if collision else 0) == part["collision"], line
        assert line.endswith(f"→ +{part['gained']} (score {part['score']})"), line


def test_a_complete_game_against_the_ai_by_clicks_then_its_replay(
        stack: dict[str, str], new_page: Any, console: Console, tmp_path: Path) -> None:
    page = new_page()
    # the AI's turns shown at once: their playback (400 ms an action, test_readable.py) would double this test
    page.emulate_media(reduced_motion="reduce")
    start_game_against_ai(page, stack)
    page.wait_for_selector("svg.board g.square.target")
    assert page.locator("svg.board g.square.target").count() == 8  # the free foundations for the first knight
    shot(page, "board-setup", tmp_path)

    # setup by clicks until the first turn, then a refusal shown in words: leftover blocks onto a full stack
    set_up_by_clicks(page)
    version = page.evaluate("() => document.querySelector('main').dataset.version")
    page.locator("input.spread").first.fill("1")
    click_and_wait(page, page.locator("#end-turn"))
    # the refusal (or, wrongly, a new version) may land a moment after the page is idle again
    page.wait_for_function("(v) => document.getElementById('alert').textContent.trim() !== ''"
                           " || document.querySelector('main').dataset.version !== v", arg=version, timeout=15_000)
    alert = page.inner_text("#alert")
    assert "refused" in alert and "stack above 3" in alert and "422" in alert, alert
    assert page.evaluate("() => document.querySelector('main').dataset.version") == version  # nothing changed
    assert page.locator("input.spread").first.input_value() == "1"  # what the player typed is kept to correct
    page.locator("input.spread").first.fill("0")

    counts = play_to_the_end(page, tmp_path)
    assert counts["turns"] >= 10  # 2 players: 12 turns each, the first one ended above
    assert counts["bought"] == 2
    # the log names the seat by the name the lobby gave it (its default, player-1), over each of its turns
    mine = page.locator("#log .turn-group", has=page.locator(".turn-head", has_text="player-1"))
    assert mine.locator("li", has_text="keeps").count() == 2  # both kept through the buttons
    # cards chosen in the hand are played on targets the page offered (a card may be picked more than once
    # before its play goes through, so the two counts need not be equal)
    plays = mine.locator("li", has_text="plays").count()
    assert 1 <= plays <= counts["played"] if counts["played"] else plays == 0, counts
    final = page.locator("#final")
    assert "Final score" in final.inner_text()
    game_id = re.search(r"game=([0-9a-f-]+)", page.url)[1]
    summary = httpx.get(f"{stack['game']}/v1/games/{game_id}").json()
    assert summary["status"] == "over"
    assert scores(page) == [f"score {s}" for s in summary["scores"]]
    assert f"Seat {summary['winner']} wins" in final.inner_text() or "You win" in final.inner_text()
    log = page.locator("#log li")
    assert log.count() == summary["version"] and "game over" in log.last.inner_text()
    shot(page, "board-final", tmp_path)
    final_board, final_scores = board(page), scores(page)

    # the replay, stepped to the end, shows exactly the final state
    page.click("text=Replay and audit this game")
    page.wait_for_selector("#verify")
    assert "verified" in page.inner_text("#verify")
    assert "matches the commitment" in page.inner_text("#seed-check")
    last = summary["version"]
    page.click("#first")
    page.wait_for_function("n => document.getElementById('at').textContent === `version 1 of ${n}`", arg=last)
    assert board(page) != final_board
    for _ in range(3):
        page.click("#forward")
    page.wait_for_function("n => document.getElementById('at').textContent.startsWith('version 4 ')", arg=last)
    page.click("#back")
    page.wait_for_function("() => document.getElementById('at').textContent.startsWith('version 3 ')")
    page.fill("#jump", str(last - 1))
    page.click("text=Jump")
    page.wait_for_selector("#scoring-explained")  # the last end_turn: the phase 3 scoring, explained
    assert "Scoring of phase 3" in page.inner_text("#scoring-explained")
    check_scoring_explained(page, stack, game_id, last - 1, phase=3)
    shot(page, "replay", tmp_path)
    page.click("#end")
    page.wait_for_function("n => document.getElementById('at').textContent === `version ${n} of ${n}`", arg=last)
    assert board(page) == final_board and scores(page) == final_scores
    assert console.unexpected(allow_refusals=1) == []


def test_an_illegal_click_offers_nothing_and_sends_nothing(
        stack: dict[str, str], new_page: Any, console: Console) -> None:
    page = new_page()
    start_game_against_ai(page, stack)
    posts: list[str] = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
    square = page.locator('svg.board g.square[data-square="B2"]')  # no foundation: no legal action there
    assert square.get_attribute("aria-disabled") == "true" and "target" not in square.get_attribute("class")
    version = page.evaluate("() => document.querySelector('main').dataset.version")
    square.click(force=True)  # a person can click it; Playwright would otherwise wait for it to be enabled
    square.focus()
    page.keyboard.press("Enter")
    page.wait_for_timeout(500)
    assert posts == []
    assert page.evaluate("() => document.querySelector('main').dataset.version") == version
    assert page.locator(".square.selected, .chooser").count() == 0
    # ... and a sighted player sees that the click registered, not only a screen reader
    note = page.locator("#square-note")
    assert note.is_visible() and "B2" in note.inner_text(), page.inner_text("#controls")
    assert console.unexpected() == []


def test_the_opponent_sees_the_move_live_and_squares_work_by_keyboard(
        stack: dict[str, str], new_page: Any, console: Console) -> None:
    alice = new_page()
    alice.goto(stack["play"])
    alice.fill("#my-name", "Alice")
    alice.select_option('select[name="kind1"]', "human")  # seat 1: another person, by link
    alice.click("#start-game")
    invite = alice.locator("a.invite").get_attribute("href")
    bob = new_page()  # another browser context: its own storage, as another person's browser
    bob.goto(invite)
    bob.wait_for_selector("svg.board")
    settled(bob)
    alice.click("#enter-game")
    alice.wait_for_selector("svg.board g.square.target")
    settled(alice)

    # Alice places her first knight with the keyboard: focus D1, arrow to E1 and back, Enter
    alice.locator('g.square[data-square="D1"]').focus()
    alice.keyboard.press("ArrowRight")
    assert alice.evaluate("() => document.activeElement.dataset.square") == "E1"
    alice.keyboard.press("ArrowLeft")
    assert alice.locator('g.square[data-square="D1"]').get_attribute("aria-label") == \
        "D1, height 1, castle of base area 1, Place your first knight on D1"
    alice.keyboard.press("Enter")

    # Bob, who did nothing, sees it through the push channel: the square's name and the move log
    bob.wait_for_function("""() => document.querySelector('g.square[data-square="D1"]')
        .getAttribute('aria-label').startsWith('D1, height 1, blue knight')""", timeout=10_000)
    bob.wait_for_selector("#log .turn-group:has(.turn-head:has-text('Alice'))"
                          " li:has-text('places a first knight on D1')")
    # his turn once her move has been played back on his board
    bob.wait_for_function("() => document.querySelector('main').dataset.turn === 'mine'")
    click_and_wait(bob, bob.locator("svg.board g.square.target").first)
    placed = [sq for sq, label in board(bob).items() if label.endswith("orange knight")]
    assert len(placed) == 1
    alice.wait_for_function(
        f"""() => document.querySelector('g.square[data-square="{placed[0]}"]')
            .getAttribute('aria-label').includes('orange knight')""", timeout=10_000)

    # a spectator (no token, no key) replays the running game up to its current version
    game_id = re.search(r"game=([0-9a-f-]+)", bob.url)[1]
    settled(bob)
    spectator = new_page()
    spectator.goto(f"{stack['game']}/play/#game={game_id}&replay=1")
    spectator.wait_for_selector("#verify")
    assert "read as spectator" in spectator.inner_text("main") and "running" in spectator.inner_text("main")
    spectator.wait_for_function("() => document.getElementById('at').textContent === 'version 3 of 3'")
    assert board(spectator) == board(bob)
    assert "Cards: 0 cards (hidden)" in spectator.inner_text("#seats")
    assert console.unexpected() == []


def test_a_matchmaking_ticket_turns_into_a_game(stack: dict[str, str], new_page: Any, console: Console) -> None:
    page = new_page()
    page.goto(stack["play"])
    page.fill("#player-id", "web-player")
    page.fill("#max-wait", "0")  # the matcher fills the other seat with the AI at once
    page.click("#find-match")
    # The ticket's line, unless the pushed match was faster and the page is already in the game
    page.wait_for_function("() => location.hash.startsWith('#game=') || "
                           "(document.getElementById('ticket-status')?.textContent || '').startsWith('Ticket')")
    page.wait_for_url(re.compile(r"#game=[0-9a-f-]+&token="), timeout=30_000)
    page.wait_for_selector("svg.board")
    settled(page)
    game_id = re.search(r"game=([0-9a-f-]+)", page.url)[1]
    summary = httpx.get(f"{stack['game']}/v1/games/{game_id}").json()
    assert any(seat.get("player_id") == "web-player" for seat in summary["seats"])
    assert any(seat["kind"] == "ai" for seat in summary["seats"])
    page.click("text=Lobby")
    page.wait_for_selector(f"#my-games code:has-text('{game_id[:8]}')")
    assert console.unexpected() == []


def test_the_lobby_queues_with_a_player_token_and_never_puts_it_in_a_url(stack: dict[str, str], new_page: Any,
                                                                         console: Console) -> None:
    """The lobby gets a player token from `make run`'s dev issuer, creates and cancels its ticket with it
    in the Authorization header, and opens the ticket's stream with a single-use stream ticket: the token is in
    no URL the page requests."""
    page = new_page()
    requests: list[tuple[str, str, str | None]] = []
    page.on("request", lambda r: requests.append((r.method, r.url, r.headers.get("authorization"))))
    page.goto(stack["play"])
    page.fill("#player-id", "web-waiter")
    page.fill("#max-wait", "200")
    for n in ("2", "3"):
        page.uncheck(f"input[name='count'][value='{n}']")
    page.check("input[name='count'][value='4']")  # nobody else waits for a 4-player game: the ticket stays queued
    page.click("#find-match")
    page.wait_for_function("() => (document.getElementById('ticket-status')?.textContent || '').includes('queued')")
    page.wait_for_function("() => !document.getElementById('cancel-ticket').hidden")
    for _ in range(100):  # the stream opens once its stream ticket has come back
        streams = [url for _, url, _ in requests if "/stream?" in url]
        if streams:
            break
        page.wait_for_timeout(100)
    assert streams and all("stream_ticket=" in url for url in streams), streams
    tokens = {auth.split(" ", 1)[1] for _, _, auth in requests if auth and auth.lower().startswith("bearer ")}
    assert tokens and not any(token in url for token in tokens for _, url, _ in requests)
    created = [(m, url) for m, url, auth in requests if url.endswith("/v1/tickets") and m == "POST"]
    assert created and all(auth for m, url, auth in requests if url.endswith("/v1/tickets") and m == "POST")
    page.click("#cancel-ticket")
    page.wait_for_function("() => document.getElementById('ticket-status').textContent === 'Left the queue.'")
    assert any(m == "DELETE" and auth for m, url, auth in requests if "/v1/tickets/" in url)
    assert console.unexpected() == []


def test_a_clocked_game_from_the_lobby_shows_its_clock(stack: dict[str, str], new_page: Any,
                                                        console: Console) -> None:
    """The lobby's clock fields create a timed game, and the page shows the time left of the seat to
    move, as the view's public lifecycle says."""
    page = new_page()
    page.goto(stack["play"])
    page.fill("#turn-seconds", "600")
    page.select_option("select[name='on-timeout']", "ai-turn")
    page.click("#start-game")
    page.wait_for_selector("svg.board")
    settled(page)
    game_id = re.search(r"game=([0-9a-f-]+)", page.url)[1]
    token = re.search(r"token=([^&]+)", page.url)[1]
    view = httpx.get(f"{stack['game']}/v1/games/{game_id}/view", headers={"Authorization": f"Bearer {token}"}).json()
    life = view["lifecycle"]
    assert life["clock"]["turn_seconds"] == 600 and life["timeout_policy"] == {
        "policy": "ai", "scope": "turn", "level": "easy"}
    page.wait_for_function("() => /clock: \\d+ s left for \\S/.test(document.getElementById('turn').textContent)")
    left = int(re.search(r"clock: (\d+) s left", page.inner_text("#turn"))[1])
    assert 0 < left <= 600
    assert console.unexpected() == []


def test_a_tied_abandoned_game_shows_a_shared_first_place(stack: dict[str, str], new_page: Any,
                                                          console: Console) -> None:
    """A portal abandons a game with equal scores; the page names no single winner."""
    api = httpx.Client(base_url=stack["game"], headers={"X-API-Key": stack["key"]})
    game = api.post("/v1/games", json={"seats": [{"kind": "human", "player_id": "ann"},
                                                 {"kind": "human", "player_id": "ben"}]}).json()
    gid = game["game_id"]
    for n in range(3):  # the two start knights and the king: the game is in its first turn, scores 0 and 0
        play_first_legal(api, gid, [s["token"] for s in game["seats"]], f"setup-{n}")
    assert api.post(f"/v1/games/{gid}/abandon", json={"reason": "server move"}).status_code == 201
    page = new_page()
    page.goto(f"{stack['play']}".split("#")[0] + f"#game={gid}&token={game['seats'][1]['token']}")
    final = page.locator("#final")
    final.wait_for()
    assert "A tie for first place between Seat 0 and you with 0 points each." in final.inner_text()
    assert "wins" not in final.inner_text()
    assert console.unexpected() == []


def test_a_private_game_is_played_live_with_its_seat_token_only(stack: dict[str, str], new_page: Any,
                                                                console: Console) -> None:
    """A private game answers 404 to whoever holds nothing for it, so the page reads it with its seat
    token (summary, replay, verify too), and follows it by SSE with a single-use stream ticket it gets with the
    token (an EventSource cannot send a header): the token is in no URL the page requests."""
    service = {"X-API-Key": "web-test-service-key"}
    created = httpx.post(f"{stack['game']}/v1/games", headers=service, json={
        "visibility": "private", "seats": [{"kind": "human", "player_id": "alice"},
                                           {"kind": "human", "player_id": "bob"}]}).json()
    game_id, alice, bob = created["game_id"], created["seats"][0]["token"], created["seats"][1]["token"]
    assert httpx.get(f"{stack['game']}/v1/games/{game_id}").status_code == 404  # nobody else sees it
    page = new_page()
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(f"{stack['game']}/play/#game={game_id}&token={bob}")
    page.wait_for_selector("svg.board")
    settled(page)
    for _ in range(100):  # the stream opens once its stream ticket has come back
        if any("/stream?" in url for url in requests):
            break
        page.wait_for_timeout(100)
    legal = httpx.get(f"{stack['game']}/v1/games/{game_id}/legal-actions",
                      headers={"Authorization": f"Bearer {alice}"}).json()
    action = next(a for a in legal["actions"] if a.get("at") == "D1")
    moved = httpx.post(f"{stack['game']}/v1/games/{game_id}/actions", headers={"Authorization": f"Bearer {alice}"},
                       json={"seat": 0, "action": action, "expected_version": 1, "command_id": "alice-1"})
    assert moved.status_code == 201, moved.text
    page.wait_for_function("""() => document.querySelector('g.square[data-square="D1"]')
        .getAttribute('aria-label').startsWith('D1, height 1, blue knight')""", timeout=10_000)
    page.wait_for_function("() => document.querySelector('main').dataset.turn === 'mine'")  # after the playback
    streams = [url for url in requests if "/stream?" in url]
    assert streams and all("stream_ticket=" in url for url in streams), streams
    assert not any("/wait?" in url for url in requests)  # live by SSE, not the long-poll
    assert not any(bob in url for url in requests)
    page.click("text=Replay and audit this game")  # the link keeps the seat token
    page.wait_for_selector("#verify")
    page.wait_for_function("() => document.getElementById('at').textContent === 'version 2 of 2'")
    assert "verified" in page.inner_text("#verify")
    assert console.unexpected() == []


def test_seats_carry_the_names_the_portal_gave_them(stack: dict[str, str], new_page: Any, console: Console,
                                                   tmp_path: Path) -> None:
    """A game created with display names shows them in the seat panel and the turn line (the text
    comes from the page as a person reads it), and a seat without one keeps its number."""
    service = {"X-API-Key": "web-test-service-key"}
    created = httpx.post(f"{stack['game']}/v1/games", headers=service, json={
        "seats": [{"kind": "human", "player_id": "alice", "display_name": "Alice (Köln)"},
                  {"kind": "human", "player_id": "bob"}]}).json()
    page = new_page()
    page.goto(f"{stack['game']}/play/#game={created['game_id']}&token={created['seats'][1]['token']}")
    page.wait_for_selector("svg.board")
    settled(page)
    heads = page.locator("ul.seats .seat-head strong").all_inner_texts()
    assert heads[0].startswith("Alice (Köln) · ") and heads[1].startswith("Seat 1 · ") and "you" in heads[1]
    assert "Alice (Köln)" in page.inner_text("main") and "to move" in page.inner_text("main")
    shot(page, "seat-display-names", tmp_path)
    assert console.unexpected() == []


@pytest.mark.parametrize("edition", ["yucata", "rio_grande", "ravensburger"])
def test_the_leftover_spread_is_asked_only_where_the_edition_leaves_it_to_the_player(
        stack: dict[str, str], new_page: Any, console: Console, edition: str) -> None:
    """In the Yucata edition the leftovers go onto the next stacks by rule, so the spread is shown and
    cannot be edited (an edit was refused with a 422 every time); in the others the player types it."""
    service = {"X-API-Key": "web-test-service-key"}
    with httpx.Client(base_url=stack["game"], timeout=10) as http:
        created = http.post("/v1/games", headers=service, json={
            "edition": edition, "seats": [{"kind": "human", "player_id": "p0"}, {"kind": "human", "player_id": "p1"}]
        }).json()
        gid, tokens = created["game_id"], [seat["token"] for seat in created["seats"]]
        for n in range(60):  # the setup, by the first legal placement of whoever is to move
            seat = http.get(f"/v1/games/{gid}").json()["to_move"]
            legal = http.get(f"/v1/games/{gid}/legal-actions", headers={"Authorization": f"Bearer {tokens[seat]}"})
            if any(action["type"] == "end_turn" for action in legal.json()["actions"]):
                break
            play_first_legal(http, gid, tokens, f"setup-{n}")
    page = new_page()
    page.goto(f"{stack['game']}/play/#game={gid}&token={tokens[seat]}")
    page.wait_for_selector("#end-turn")
    settled(page)
    spreads = page.locator("input.spread")
    assert spreads.count() == 3
    editable = [spreads.nth(i).is_editable() for i in range(3)]
    assert editable == ([False] * 3 if edition == "yucata" else [True] * 3)
    assert console.unexpected() == []


def test_focus_stays_in_the_game_after_end_turn_by_enter(stack: dict[str, str], new_page: Any,
                                                          console: Console) -> None:
    """Pressing "End turn" with Enter redraws the controls, and the focus must not fall to <body>: it
    lands on the turn line (the button is gone while the AI plays), inside the game, where the keyboard goes on."""
    page = new_page()
    start_game_against_ai(page, stack)
    set_up_by_clicks(page)
    version = page.evaluate("() => document.querySelector('main').dataset.version")
    page.focus("#end-turn")
    page.keyboard.press("Enter")
    page.wait_for_function("(v) => document.querySelector('main').dataset.version !== v", arg=version)
    settled(page)
    where = page.evaluate("() => { const a = document.activeElement;"
                          " return {tag: a.tagName, id: a.id, inMain: document.querySelector('main').contains(a)}; }")
    assert where["tag"] != "BODY" and where["inMain"], where
    assert console.unexpected() == []


def test_on_a_phone_the_turn_and_end_turn_come_before_the_board(stack: dict[str, str], browser: Any,
                                                                 console: Console, tmp_path: Path) -> None:
    """At 390 px the turn line and the controls (End turn) stood below the board and the score track."""
    context = browser.new_context(viewport={"width": 390, "height": 844})
    context.set_default_timeout(15_000)
    try:
        page = console.watch(context.new_page())
        start_game_against_ai(page, stack)
        page.wait_for_selector("svg.board g.square.target")
        top = {name: page.locator(selector).bounding_box()["y"]  # type: ignore[index]
               for name, selector in (("turn", "#turn"), ("controls", "#controls"), ("board", "svg.board"),
                                      ("track", ".track-box"), ("seats", "#seats"))}
        assert top["turn"] < top["controls"] < top["board"] < top["track"] < top["seats"], top
        shot(page, "phone-390", tmp_path)
        assert console.unexpected() == []
    finally:
        context.close()


def test_the_board_is_one_tab_stop_with_the_arrow_keys_inside(stack: dict[str, str], new_page: Any,
                                                              console: Console) -> None:
    """The board was 64 tab stops. Now one square is in the tab order (a roving tabindex: the first
    target here), the arrow keys move within the board and take the tab stop along, and Tab leaves the board."""
    page = new_page()
    start_game_against_ai(page, stack)
    page.wait_for_selector("svg.board g.square.target")
    stops = page.locator("svg.board [data-square][tabindex='0']")
    assert stops.count() == 1
    first_target = page.locator("svg.board g.square.target").first.get_attribute("data-square")
    assert stops.first.get_attribute("data-square") == first_target
    stops.first.focus()
    for key in ("ArrowDown", "ArrowUp"):  # (up, if the target is on the last row)
        page.keyboard.press(key)
        moved = page.evaluate("() => document.activeElement.dataset.square")
        if moved != first_target:
            break
    assert moved != first_target and stops.count() == 1 and stops.first.get_attribute("data-square") == moved
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.dataset.square ?? null") is None  # out of the board at once
    page.keyboard.press("Shift+Tab")
    assert page.evaluate("() => document.activeElement.dataset.square") == moved  # back where the keyboard left it
    assert console.unexpected() == []


def test_a_master_game_says_what_its_master_card_pays(stack: dict[str, str], new_page: Any,
                                                      console: Console) -> None:
    """The master card was only named ("master card: together"); its effect (docs/rules.md section 11) is
    now on screen under the turn line."""
    created = httpx.post(f"{stack['game']}/v1/games", headers={"X-API-Key": "web-test-service-key"}, json={
        "master": True, "seats": [{"kind": "human", "player_id": "p0"}, {"kind": "human", "player_id": "p1"}]}).json()
    page = new_page()
    page.goto(f"{stack['game']}/play/#game={created['game_id']}&token={created['seats'][0]['token']}")
    page.wait_for_selector("svg.board")
    settled(page)
    master = page.locator("#master-card")
    assert master.is_visible()
    text = master.inner_text()
    assert text.startswith("Master card “") and re.search(r": (40|50|5 / 15 / 30)$|2 / 5 / 10$", text), text
    assert console.unexpected() == []
