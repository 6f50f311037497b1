"""A readable game: moves in player words grouped by turn (the wire notation on hover), the same words
in the replay; others' turns played back one action at a time with the knight moves as arrows (instant with
reduced motion); a distinct mark for each kind of action, readable on every height, and the kind asked first
where a square offers several. In Chromium through Playwright, against the `make run` stack."""

from __future__ import annotations

import itertools
import re
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from game_http import play_first_legal

from .conftest import Console
from .pages import click_and_wait, set_up_by_clicks, settled

pytestmark = pytest.mark.timeout(120)

SERVICE = {"X-API-Key": "web-test-service-key"}

#: Records every frame of a playback (the `data-playback` version the page shows) with the board as a person
#: hears it (every square's name), the arrows drawn and the time.
WATCH_PLAYBACK = """() => {
  window.playbackFrames = [];
  const main = document.querySelector('main');
  new MutationObserver(() => {
    const v = main.dataset.playback;
    if (!v || (window.playbackFrames.length && window.playbackFrames[window.playbackFrames.length - 1].v === v)) return;
    window.playbackFrames.push({
      v, t: performance.now(),
      board: Object.fromEntries([...document.querySelectorAll('svg.board g.square')]
        .map((g) => [g.dataset.square, g.getAttribute('aria-label')])),
      arrows: [...document.querySelectorAll('svg.board .move-arrow')].map((a) => `${a.dataset.from}-${a.dataset.to}`),
    });
  }).observe(main, { attributes: true, attributeFilter: ['data-playback'] });
}"""


@pytest.fixture
def api(stack: dict[str, str]) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=stack["game"], timeout=15) as client:
        yield client


def events_of(api: httpx.Client, gid: str, token: str | None = None) -> list[dict[str, Any]]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return api.get(f"/v1/games/{gid}/events?after=0&limit=1000", headers=headers).json()["events"]


def finished_ai_game(api: httpx.Client) -> str:
    """A 2-seat game of two named AI seats (Ada, Bert), played to its end: its id."""
    created = api.post("/v1/games", headers=SERVICE, json={"seats": [
        {"kind": "ai", "display_name": "Ada"}, {"kind": "ai", "display_name": "Bert"}]}).json()
    gid = created["game_id"]
    deadline = time.monotonic() + 60
    while api.get(f"/v1/games/{gid}").json()["status"] != "over":
        assert time.monotonic() < deadline, "the AI game did not end"
        time.sleep(0.2)
    return gid


def two_humans_after_setup(api: httpx.Client) -> tuple[str, list[str], int]:
    """A 2-seat game of two people, its setup played through the API (each seat's first legal placement): the
    game id, the seat tokens and the seat whose first turn it is."""
    created = api.post("/v1/games", headers=SERVICE, json={"seats": [
        {"kind": "human", "player_id": "p0", "display_name": "Ada"},
        {"kind": "human", "player_id": "p1", "display_name": "Bert"}]}).json()
    gid, tokens = created["game_id"], [seat["token"] for seat in created["seats"]]
    for n in range(20):
        seat = api.get(f"/v1/games/{gid}").json()["to_move"]
        legal = api.get(f"/v1/games/{gid}/legal-actions", headers={"Authorization": f"Bearer {tokens[seat]}"}).json()
        if any(action["type"] == "end_turn" for action in legal["actions"]):
            return gid, tokens, seat
        play_first_legal(api, gid, tokens, f"setup-{n}")
    raise AssertionError("the setup did not end")


def play(api: httpx.Client, gid: str, token: str, seat: int, *types: str) -> list[tuple[int, dict[str, Any]]]:
    """The seat plays, through the API, the first legal action of each type in turn: [(version, action)]."""
    done = []
    for kind in types:
        legal = api.get(f"/v1/games/{gid}/legal-actions", headers={"Authorization": f"Bearer {token}"}).json()
        action = next(a for a in legal["actions"] if a["type"] == kind)
        answer = api.post(f"/v1/games/{gid}/actions", headers={"Authorization": f"Bearer {token}"}, json={
            "seat": seat, "action": action, "expected_version": legal["version"],
            "command_id": f"{kind}-{legal['version']}"})
        assert answer.status_code == 201, answer.text
        done.append((legal["version"] + 1, action))
    return done


def open_seat(page: Any, stack: dict[str, str], gid: str, token: str | None = None) -> None:
    page.goto(f"{stack['game']}/play/#game={gid}" + (f"&token={token}" if token else ""))
    page.wait_for_selector("svg.board")
    settled(page)


def words_of_line(page: Any, version: int) -> str:
    return page.inner_text(f"#log li[data-version='{version}'] .words")


def test_the_log_speaks_player_words_by_turn_and_the_replay_says_the_same(
        stack: dict[str, str], api: httpx.Client, new_page: Any, console: Console) -> None:
    """A finished game of two named AI seats: the log is grouped by turn under the seats' names, its lines hold no
    engine notation (0-based stacks, type names, lists) while each line's tooltip is the engine's wire text of
    that event; the replay's step line and log line for a version say what the live log says."""
    gid = finished_ai_game(api)
    events = events_of(api, gid)
    page = new_page()
    open_seat(page, stack, gid)  # a spectator of the finished game
    page.wait_for_function("n => document.querySelectorAll('#log li').length === n", arg=len(events))

    heads = page.locator("#log .turn-head").all_inner_texts()
    assert set(heads) == {"Ada", "Bert", "Game"}, set(heads)
    assert len(heads) > 2 * 12  # a turn each per round and more: grouped, not one heading per game
    groups = page.eval_on_selector_all("#log .turn-group", """els => els.map((g) => ({
        seat: g.dataset.seat, versions: [...g.querySelectorAll('li')].map((li) => Number(li.dataset.version))}))""")
    by_version = {e["version"]: e for e in events}
    for group in groups:  # each group is one seat's actions, and it ends where its turn ends
        seats = {str(by_version[v]["payload"].get("seat", "game")) for v in group["versions"]}
        assert seats == {group["seat"]}, group
        types = [by_version[v]["payload"].get("action", {}).get("type") for v in group["versions"]]
        assert all(t not in ("end_turn", "move_king") for t in types[:-1]), types
    assert max(len(g["versions"]) for g in groups) >= 3  # a whole turn under one heading

    lines = page.eval_on_selector_all("#log li", """els => els.map((li) => ({
        v: Number(li.dataset.version), words: li.querySelector('.words').textContent, title: li.title}))""")
    for line in lines:
        event = by_version[line["v"]]
        assert line["title"] == event["text"], line  # the engine's wire text, on hover
        assert not re.search(r"stack 0|_|\[|\]", line["words"]), line  # no engine notation in the words
        action = event["payload"].get("action", {})
        if "stack" in action and action["type"] == "build":
            assert f"stack {action['stack'] + 1}" in line["words"], line  # numbered as on the buttons
    builds = [e["version"] for e in events if e["payload"].get("action", {}).get("type") == "build"]
    moves = [e["version"] for e in events if e["payload"].get("action", {}).get("type") in ("move_knight", "end_turn")]
    assert builds and moves
    live = {v: words_of_line(page, v) for v in (builds[0], moves[0], events[-1]["version"])}
    names = {str(seat): name for seat, name in enumerate(("Ada", "Bert"))}

    page.goto(f"{stack['game']}/play/#game={gid}&replay=1")
    page.wait_for_selector("#verify")
    for version, words in live.items():
        page.fill("#jump", str(version))
        page.click("text=Jump")
        page.wait_for_function("v => document.getElementById('at').textContent.startsWith(`version ${v} `)",
                               arg=version)
        seat = by_version[version]["payload"].get("seat")
        prefix = f"{names[str(seat)]}: " if seat is not None else ""
        assert page.inner_text("#step") == f"v{version}: {prefix}{words}"
        assert words_of_line(page, version) == words
    assert console.unexpected() == []


#: Holds back, until the test calls `window.release()`, the replay's first position (the first answer of
#: `GET /state?version=`) or the seed check (every WebCrypto SHA-256): what a loaded machine or a slow connection
#: does to a long game's replay while the person already uses its controls.
HOLD = """(() => {
  let release;
  const gate = new Promise((resolve) => { release = resolve; });
  window.release = () => release();
  if (%r === 'position') {
    const plain = window.fetch.bind(window);
    let held = false;
    window.fetch = async (...args) => {
      const answer = await plain(...args);
      if (!held && String(args[0]).includes('/state?version=')) { held = true; await gate; }
      return answer;
    };
  } else {
    const digest = crypto.subtle.digest.bind(crypto.subtle);
    crypto.subtle.digest = async (...args) => { await gate; return digest(...args); };
  }
})();"""


@pytest.mark.parametrize("slow", ["position", "seed"])
def test_a_version_asked_for_while_the_replay_loads_is_the_one_shown(
        stack: dict[str, str], api: httpx.Client, new_page: Any, console: Console, slow: str) -> None:
    """The replay's controls work as soon as they show. A version typed in the jump box while the first
    position loads stays there (the position arrived and replaced it: "Jump" went to the last version); a jump
    made while the seed is checked is not undone when the check ends (the first position was asked for after
    it and won). Either left the test above waiting for its jump in a full-suite run (the page on the last
    version, 30 s)."""
    gid = finished_ai_game(api)
    last = events_of(api, gid)[-1]["version"]
    page = new_page()
    page.add_init_script(HOLD % slow)
    page.goto(f"{stack['game']}/play/#game={gid}&replay=1")
    page.wait_for_selector("#verify")
    page.fill("#jump", "5")
    if slow == "position":
        page.evaluate("() => window.release()")
        page.wait_for_function("n => document.getElementById('at').textContent === `version ${n} of ${n}`", arg=last)
        assert page.input_value("#jump") == "5"  # what the person typed, not the version that arrived
    page.click("text=Jump")
    page.wait_for_function("() => document.getElementById('at').textContent.startsWith('version 5 ')")
    if slow == "seed":
        page.evaluate("() => window.release()")
        page.wait_for_selector("#seed-check")
    page.click("#forward")  # from version 5, whatever the page still had to finish
    at = page.wait_for_function("""n => { const at = document.getElementById('at').textContent;
        return new RegExp(`^version (6|${n}) `).test(at) && at; }""", arg=last).json_value()
    assert at == f"version 6 of {last}" and page.input_value("#jump") == "6"
    assert console.unexpected() == []


#: Holds back the next request for the seat's view, once armed (`window.armView()`), until `window.releaseView()`:
#: its refresh's events then answer at once, the view later, at a newer version (what two requests of one refresh
#: answered by a busy server around someone else's appends do).
HOLD_VIEW = """() => {
  const plain = window.fetch.bind(window);
  let armed = false, release = null;
  window.viewHeld = false;
  window.armView = () => { armed = true; };
  window.releaseView = () => release();
  window.fetch = async (...args) => {
    if (armed && /\\/view(\\?|$)/.test(String(args[0]))) {
      armed = false;
      window.viewHeld = true;
      await new Promise((resolve) => { release = resolve; });
    }
    return plain(...args);
  };
}"""


def test_a_refresh_whose_view_is_newer_than_its_events_plays_back_every_action_up_to_the_view(
        stack: dict[str, str], api: httpx.Client, new_page: Any, console: Console) -> None:
    """Ada builds; Bert's refresh reads the events (the build) and, held back, his view after Ada has also moved
    and ended her turn. His board shows each of her three actions in turn before his own turn, not the build
    alone followed by his turn (seen once in a full-suite run)."""
    gid, tokens, mover = two_humans_after_setup(api)
    page = new_page()
    open_seat(page, stack, gid, tokens[1 - mover])
    page.evaluate(HOLD_VIEW)
    page.evaluate(WATCH_PLAYBACK)
    page.evaluate("() => window.armView()")
    done = play(api, gid, tokens[mover], mover, "build")
    page.wait_for_function("() => window.viewHeld")
    done += play(api, gid, tokens[mover], mover, "move_knight", "end_turn")
    page.evaluate("() => window.releaseView()")
    page.wait_for_function("() => document.querySelector('main').dataset.turn === 'mine'"
                           " && document.querySelector('main').dataset.busy === '0'")
    assert [int(f["v"]) for f in page.evaluate("() => window.playbackFrames")] == [v for v, _ in done]
    assert page.locator(f"#log li[data-version='{done[-1][0]}']").count() == 1
    assert console.unexpected() == []


def test_the_other_seats_turn_is_played_back_one_action_at_a_time_with_an_arrow(
        stack: dict[str, str], api: httpx.Client, new_page: Any, console: Console) -> None:
    """Bert watches Ada build, move a knight and end her turn (through the API): his board shows each action on
    its own (the block without the move, then the move with its arrow), about 400 ms apart, then his turn with
    her changes still marked. Her next turn he skips with Escape: the rest is not played."""
    gid, tokens, mover = two_humans_after_setup(api)
    page = new_page()
    open_seat(page, stack, gid, tokens[1 - mover])
    page.evaluate(WATCH_PLAYBACK)
    done = play(api, gid, tokens[mover], mover, "build", "move_knight", "end_turn")
    page.wait_for_function("() => document.querySelector('main').dataset.turn === 'mine'"
                           " && document.querySelector('main').dataset.busy === '0'")
    frames = page.evaluate("() => window.playbackFrames")
    assert [int(f["v"]) for f in frames] == [v for v, _ in done]
    build, move = done[0][1], done[1][1]
    first, second = frames[0]["board"], frames[1]["board"]
    assert "knight" in first[move["from"]] and "knight" not in first[move["to"]]  # built, not moved yet
    assert "knight" in second[move["to"]] and "knight" not in second[move["from"]]
    assert frames[0]["arrows"] == [] and frames[1]["arrows"] == [f"{move['from']}-{move['to']}"]
    assert frames[2]["t"] - frames[0]["t"] >= 2 * 350, frames  # one at a time, not all at once
    # her turn stays marked during his: the squares she changed, and her move as an arrow
    assert page.locator(f"svg.board .move-arrow[data-from='{move['from']}'][data-to='{move['to']}']").count() == 1
    for square in (build["at"], move["from"], move["to"]):
        assert page.locator(f"svg.board g.square[data-square='{square}'] rect.last-turn").count() == 1, square
    assert "changed in the last turn" in page.get_attribute(f"g.square[data-square='{build['at']}']", "aria-label")

    click_and_wait(page, page.locator("#end-turn"))  # his turn: nothing but its end
    page.evaluate("() => { window.playbackFrames = []; }")
    again = play(api, gid, tokens[mover], mover, "build", "build", "end_turn")
    page.wait_for_selector("#skip-playback")
    page.keyboard.press("Escape")
    page.wait_for_function("() => document.querySelector('main').dataset.turn === 'mine'"
                           " && document.querySelector('main').dataset.busy === '0'")
    shown = [int(f["v"]) for f in page.evaluate("() => window.playbackFrames")]
    assert 1 <= len(shown) < 3 and shown == [v for v, _ in again][:len(shown)], shown
    assert page.locator("svg.board .move-arrow").count() == 0  # the new turn replaced the old marks
    assert console.unexpected() == []


def test_with_reduced_motion_the_other_turn_shows_at_once(
        stack: dict[str, str], api: httpx.Client, browser: Any, console: Console) -> None:
    """`prefers-reduced-motion: reduce`: no playback, the board shows the outcome at once, still marked."""
    gid, tokens, mover = two_humans_after_setup(api)
    context = browser.new_context(viewport={"width": 1280, "height": 860}, reduced_motion="reduce")
    context.set_default_timeout(15_000)
    try:
        page = console.watch(context.new_page())
        open_seat(page, stack, gid, tokens[1 - mover])
        page.evaluate(WATCH_PLAYBACK)
        done = play(api, gid, tokens[mover], mover, "build", "move_knight", "end_turn")
        page.wait_for_function("() => document.querySelector('main').dataset.turn === 'mine'"
                               " && document.querySelector('main').dataset.busy === '0'")
        assert page.evaluate("() => window.playbackFrames") == []
        move = done[1][1]
        assert page.locator(f"svg.board .move-arrow[data-from='{move['from']}'][data-to='{move['to']}']").count() == 1
        assert console.unexpected() == []
    finally:
        context.close()


def test_the_ai_turn_is_played_back_action_by_action(stack: dict[str, str], api: httpx.Client, new_page: Any,
                                                     console: Console) -> None:
    """Against the AI (from the lobby): after "End turn" the AI's actions are shown one by one, each of them."""
    page = new_page()
    page.goto(stack["play"])
    page.click("#start-game")
    page.wait_for_selector("svg.board")
    settled(page)
    set_up_by_clicks(page)
    gid = re.search(r"game=([0-9a-f-]+)", page.url)[1]
    token = re.search(r"token=([^&]+)", page.url)[1]
    before = int(page.evaluate("() => document.querySelector('main').dataset.version"))
    page.evaluate(WATCH_PLAYBACK)
    click_and_wait(page, page.locator("#end-turn"))
    page.wait_for_function("() => ['mine', 'over'].includes(document.querySelector('main').dataset.turn)"
                           " && document.querySelector('main').dataset.busy === '0'")
    after = int(page.evaluate("() => document.querySelector('main').dataset.version"))
    ai = [e for e in events_of(api, gid, token) if before + 1 < e["version"] <= after
          and e["type"] == "action_applied" and e["payload"]["seat"] == 1]
    # Only the frames of the AI's turn after "End turn": the AI's set-up figures, placed while the human clicked,
    # can still be played back after `before` was read (seen in a full-suite run); they are others' actions too.
    frames = [f for f in page.evaluate("() => window.playbackFrames") if int(f["v"]) > before + 1]
    assert ai and [int(f["v"]) for f in frames] == [e["version"] for e in ai]
    gaps = [b["t"] - a["t"] for a, b in itertools.pairwise(frames)]
    assert all(gap >= 350 for gap in gaps), gaps
    knight_moves = [e["payload"]["action"] for e in ai if e["payload"]["action"]["type"] == "move_knight"]
    assert page.locator("svg.board .move-arrow").count() == len(knight_moves)
    assert console.unexpected() == []


def contrast(a: str, b: str) -> float:
    """WCAG contrast ratio of two CSS `rgb(…)` colours."""
    def luminance(colour: str) -> float:
        channels = [int(c) / 255 for c in re.findall(r"\d+", colour)[:3]]
        r, g, b = (c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b
    light, dark = sorted((luminance(a), luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def test_each_kind_of_action_has_its_own_mark_readable_on_every_height(
        stack: dict[str, str], new_page: Any, console: Console) -> None:
    """The board drawn (board.js, in the page) with every kind of target on every height 0-7: each square shows
    its kinds' marks, the four kinds' shapes differ, and every mark and target ring has a part with at least
    3:1 contrast (WCAG, non-text) against its square, the darkest included."""
    page = new_page()
    page.goto(stack["play"])
    page.wait_for_selector("#start-game")
    marks = page.evaluate("""async () => {
      const { renderBoard } = await import('./js/board.js');
      const kinds = [['build'], ['place'], ['move'], ['card'], ['build', 'place']];
      const heights = {}; const targets = new Map();
      kinds.forEach((k, row) => { for (let x = 0; x < 8; x += 1) {
        const sq = 'ABCDEFGH'[x] + (row + 1);
        heights[sq] = x;
        targets.set(sq, { label: k.join(' or '), kinds: k });
      } });
      const box = document.createElement('div');
      document.body.append(box);
      renderBoard(box, { heights, knights: {}, king: null }, { targets });
      const colour = (el, prop) => getComputedStyle(el)[prop];
      return [...targets.keys()].map((sq) => {
        const g = box.querySelector(`[data-square="${sq}"]`);
        const cell = colour(g.querySelector('rect.cell'), 'fill');
        const ring = [...g.querySelectorAll('rect.target-halo, rect.focus-ring')].map((r) => colour(r, 'stroke'))
          .filter((c) => c.startsWith('rgb'));
        return { sq, cell, kinds: targets.get(sq).kinds, ring, marks: [...g.querySelectorAll('.mark')].map((m) => ({
          kind: m.dataset.kind, tag: m.tagName, rule: m.getAttribute('fill-rule'),
          size: [Math.round(m.getBBox().width), Math.round(m.getBBox().height)],
          fill: colour(m, 'fill'), stroke: colour(m, 'stroke') })) };
      });
    }""")
    for square in marks:  # the ring around a target first: black only, it was lost on the dark squares
        assert square["ring"] and max(contrast(c, square["cell"]) for c in square["ring"]) >= 3, square
    shapes: dict[str, set[tuple[Any, ...]]] = {}
    for square in marks:
        assert [m["kind"] for m in square["marks"]] == square["kinds"], square
        for mark in square["marks"]:
            shapes.setdefault(mark["kind"], set()).add((mark["tag"], mark["rule"], tuple(mark["size"])))
            best = max(contrast(mark[part], square["cell"]) for part in ("fill", "stroke")
                       if mark[part].startswith("rgb"))
            assert best >= 3, (square["sq"], mark, square["cell"])
    assert all(len(s) == 1 for s in shapes.values()), shapes  # one shape per kind ...
    assert len({next(iter(s)) for s in shapes.values()}) == 4, shapes  # ... and four different ones
    assert console.unexpected() == []


def test_a_square_offering_two_kinds_asks_which_and_the_mode_switch_filters(
        stack: dict[str, str], api: httpx.Client, new_page: Any, console: Console) -> None:
    """A first turn where some squares take a block or a new knight: such a square carries both marks, a click on
    it asks which kind (nothing sent yet); "Place" then places the knight. The mode switch "Build" leaves only
    the build squares, each with only its mark."""
    gid, tokens, mover = two_humans_after_setup(api)
    auth = {"Authorization": f"Bearer {tokens[mover]}"}
    legal = api.get(f"/v1/games/{gid}/legal-actions", headers=auth).json()["actions"]
    builds = {a["at"] for a in legal if a["type"] == "build"}
    places = {a["at"] for a in legal if a["type"] == "place_knight"}
    both = sorted(builds & places)
    assert both, legal  # the first-legal setup leaves such squares (C1, E1, D2)
    page = new_page()
    posts: list[str] = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" and r.url.endswith("/actions") else None)
    open_seat(page, stack, gid, tokens[mover])
    square = page.locator(f"svg.board g.square[data-square='{both[0]}']")
    assert sorted(square.locator(".mark").evaluate_all("els => els.map((e) => e.dataset.kind)")) == ["build", "place"]
    square.click()
    chooser = page.locator(".chooser")
    chooser.wait_for()
    assert sorted(chooser.locator("button[data-kind]").evaluate_all("els => els.map((e) => e.dataset.kind)")) == [
        "build", "place"]
    assert posts == []

    page.click("#modes input[value='build']")  # the mode switch: build only
    targets = page.eval_on_selector_all("svg.board g.square.target", """els => els.map((g) => ({
        sq: g.dataset.square, kinds: [...g.querySelectorAll('.mark')].map((m) => m.dataset.kind)}))""")
    assert {t["sq"] for t in targets} == builds and all(t["kinds"] == ["build"] for t in targets), targets
    page.click("#modes input[value='all']")

    square.click()
    click_and_wait(page, page.locator(".chooser button[data-kind='place']"))
    last = events_of(api, gid, tokens[mover])[-1]["payload"]["action"]
    assert last == {"type": "place_knight", "at": both[0]}
    assert console.unexpected() == []


#: Counts the `version` pushes the page's stream delivered (`window.pushes`), and each drawing of the game
#: (`window.renders`: every write of `data-version`, the same value included). Installed before the page loads.
WATCH_PUSHES = """(() => {
  window.pushes = [];
  window.renders = 0;
  const Plain = window.EventSource;
  window.EventSource = class extends Plain {
    constructor(...args) {
      super(...args);
      this.addEventListener('version', (e) => window.pushes.push(JSON.parse(e.data).version));
    }
  };
  const count = (records) => { window.renders += records.length; };
  document.addEventListener('DOMContentLoaded', () => new MutationObserver(count)
    .observe(document.querySelector('main'), { attributes: true, attributeFilter: ['data-version'] }));
})();"""

#: Holds back, once armed, every request for the seat's view and legal actions until `window.release()` (those
#: asked for so far); `window.held` counts the ones waiting.
HOLD_READS = """() => {
  const plain = window.fetch.bind(window);
  let gates = [];
  window.held = 0;
  window.armReads = () => { window.armed = true; };
  window.release = () => { const open = gates; gates = []; window.held = 0; open.forEach((go) => go()); };
  window.fetch = async (...args) => {
    if (window.armed && /\\/(view|legal-actions)(\\?|$)/.test(String(args[0]))) {
      window.held += 1;
      await new Promise((resolve) => { gates.push(resolve); });
    }
    return plain(...args);
  };
}"""


def test_a_second_refresh_of_the_version_shown_keeps_the_players_pick(
        stack: dict[str, str], api: httpx.Client, new_page: Any, console: Console) -> None:
    """Ada builds and ends her turn; Bert's refresh for the build, held back, reads the end of her turn, and the
    push of that end queued one more refresh of the same version. Bert picks a knight to move before it answers:
    his pick stays (it was dropped by every refresh, whatever its version, and a click's wait then saw nothing
    happen: the whole game against the AI waited 30 s for a picked card in a full-suite run)."""
    gid, tokens, mover = two_humans_after_setup(api)
    page = new_page()
    page.emulate_media(reduced_motion="reduce")  # her turn shown at once
    page.add_init_script(WATCH_PUSHES)
    open_seat(page, stack, gid, tokens[1 - mover])
    page.evaluate(HOLD_READS)
    page.evaluate("() => window.armReads()")
    done = play(api, gid, tokens[mover], mover, "build")
    page.wait_for_function("() => window.held === 2")  # the build's refresh: its view and legal actions
    done += play(api, gid, tokens[mover], mover, "end_turn")
    page.wait_for_function("v => window.pushes.includes(v)", arg=done[-1][0])  # a second refresh queued
    page.evaluate("() => window.release()")
    page.wait_for_function("v => { const m = document.querySelector('main'); return m.dataset.version === String(v)"
                           " && m.dataset.turn === 'mine' && m.dataset.busy === '0'; }", arg=done[-1][0])
    page.wait_for_function("() => window.held === 2")  # the second refresh, of the same version, waits
    legal = api.get(f"/v1/games/{gid}/legal-actions", headers={"Authorization": f"Bearer {tokens[1 - mover]}"}).json()
    knight = next(a["from"] for a in legal["actions"] if a["type"] == "move_knight")
    click_and_wait(page, page.locator(f"svg.board g.square[data-square='{knight}']"))
    assert page.locator(f"svg.board g.square.selected[data-square='{knight}']").count() == 1
    drawn = page.evaluate("() => window.renders")
    page.evaluate("() => window.release()")
    page.wait_for_function("n => window.renders > n", arg=drawn)  # the second refresh drawn
    assert page.evaluate("() => document.querySelector('main').dataset.version") == str(done[-1][0])
    assert page.locator(f"svg.board g.square.selected[data-square='{knight}']").count() == 1
    assert console.unexpected() == []
