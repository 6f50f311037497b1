"""The worked example portal (examples/portal): its webhook endpoint checked against the service's own
signing, and the whole thing end to end in Chromium: two users of the portal log in, queue through it, play the
matched game to the end by clicks inside their iframes, hear "your turn" from the webhooks, receive the game's end
once, and see their ratings change on the leaderboard.

The stack is `make run` (infra/local_stack.py) with a tenants file written by the real keys CLI: the portal's
tenant (its key, its player-token secret, its webhook) and the matchmaker's internal key. The portal is its own
process (`python examples/portal/app.py`) on another loopback origin, listed in TORRES_FRAME_ANCESTORS.

Set TORRES_WEB_SCREENSHOTS=docs/images to rewrite docs/images/example-portal.png.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import secrets
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest
from serving import free_port
from stack.launcher import local_stack
from werkzeug.security import generate_password_hash

from torres_service.webhooks import signed_headers

from .conftest import Console
from .pages import click_and_wait, settled

ROOT = Path(__file__).resolve().parents[2]
PORTAL = ROOT / "examples" / "portal"
SHOTS = os.environ.get("TORRES_WEB_SCREENSHOTS")
TENANT = "example-portal"

pytestmark = pytest.mark.timeout(600)


def portal_module() -> ModuleType:
    """examples/portal/app.py as a module (it is an example, not an installed package)."""
    spec = importlib.util.spec_from_file_location("example_portal", PORTAL / "app.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def keys(path: Path, *args: str) -> dict[str, Any]:
    """One `python -m torres_service.keys` command, as the portal's operator runs it: what it prints."""
    done = subprocess.run([sys.executable, "-m", "torres_service.keys", "--file", str(path), *args],
                          capture_output=True, text=True, check=True, cwd=ROOT, timeout=60,
                          env={**os.environ, "TORRES_WEBHOOK_ALLOW_NETWORKS": "127.0.0.0/8"})  # a loopback portal
    return json.loads(done.stdout)


def portal_config(origin: str, **settings: str) -> dict[str, str]:
    """The portal's settings with generated secrets; its users ada and bob, with passwords of this run."""
    passwords = {user: secrets.token_urlsafe(12) for user in ("ada", "bob")}
    return {"PORTAL_GAME_URL": "http://127.0.0.1:9", "PORTAL_MATCHMAKING_URL": "http://127.0.0.1:9",
            "PORTAL_API_KEY": "unused", "PORTAL_PLAYER_ISSUER": TENANT,
            "PORTAL_PLAYER_SECRET": secrets.token_urlsafe(48),
            "PORTAL_WEBHOOK_SECRET": secrets.token_urlsafe(32), "PORTAL_ORIGIN": origin,
            "PORTAL_SECRET_KEY": secrets.token_urlsafe(32),
            "PORTAL_USERS": json.dumps({u: generate_password_hash(p) for u, p in passwords.items()}),
            "TEST_PASSWORDS": json.dumps(passwords), **settings}


def test_the_portal_is_small_and_takes_each_signed_webhook_once() -> None:
    """Under 330 lines of its own; its webhook endpoint accepts what the service's signing code signs (each
    delivery id processed once), refuses a forged, tampered or stale one, and shows the user "your turn"."""
    own = [*PORTAL.glob("*.py"), *PORTAL.glob("templates/*.html")]
    lines = sum(len(path.read_text().splitlines()) for path in own)
    assert lines < 330, f"the example portal has {lines} lines"

    config = portal_config("http://127.0.0.1:5000")
    module = portal_module()
    assert set(module.SETTINGS) <= set(config)
    app = module.create_app(config)
    client = app.test_client()
    secret = config["PORTAL_WEBHOOK_SECRET"]
    turn = {"id": "g1.5.turn.started", "type": "turn.started", "tenant": TENANT, "game_id": "g1", "external_id": None,
            "labels": [], "version": 5, "created_at": "2026-11-26T21:14:03.512345+00:00",
            "data": {"seat": 1, "kind": "human", "player_id": "bob", "display_name": None, "deadline": None,
                     "stage": "turn", "phase": 1, "round": 2}}
    body = json.dumps(turn).encode()
    for _ in range(2):  # the same delivery twice (at least once): recorded once
        assert client.post("/webhooks", data=body, headers=signed_headers(secret, body, turn["id"])).status_code == 204
    refused = [(body, signed_headers("another-secret-of-enough-bytes", body, turn["id"])),
               (body.replace(b'"bob"', b'"ada"'), signed_headers(secret, body, turn["id"])),
               (body, signed_headers(secret, body, turn["id"], now=time.time() - 3600)),
               (body, {"Content-Type": "application/json"})]
    for data, headers in refused:
        assert client.post("/webhooks", data=data, headers=headers).status_code == 401
    portal = app.extensions["portal"]
    assert portal.deliveries == {turn["id"]} and len(portal.notices["bob"]) == 1 and not portal.notices["ada"]

    password = json.loads(config["TEST_PASSWORDS"])["bob"]
    assert client.get("/notices").status_code == 302  # nobody logged in
    assert client.post("/login", data={"user": "bob", "password": "wrong"}).status_code == 200
    assert client.post("/login", data={"user": "bob", "password": password}).status_code == 302
    assert client.get("/notices").get_json() == {
        "notices": ["Your turn in game g1 (phase 1, round 2) at 21:14:03 UTC"], "results": []}


# -- end to end -------------------------------------------------------------------------------------------------

@pytest.fixture
def world(tmp_path: Path, chromium_path: str) -> Iterator[dict[str, Any]]:
    """The tenant configured with the keys CLI, `make run` on it, and the portal running against both."""
    port = free_port()
    origin = f"http://127.0.0.1:{port}"
    tenants = tmp_path / "tenants.json"
    player_secret = keys(tenants, "add-tenant", TENANT)["hs256_secret"]
    portal_key = keys(tenants, "add-key", TENANT, "--scopes", "games,matchmaking")["key"]
    internal = keys(tenants, "add-key", "matchmaker", "--internal", "--scopes", "games,notifications")["key"]
    hook_secret = keys(tenants, "set-webhook", TENANT, "--url", f"{origin}/webhooks")["secret"]
    with local_stack(tmp_path / "stack", TORRES_TENANTS_FILE=str(tenants), TORRES_API_KEY=internal,
                     TORRES_ADMIN_KEY=secrets.token_urlsafe(18), TORRES_FRAME_ANCESTORS=origin, TORRES_AI_DELAY="0",
                     MM_RATINGS_POLL_SECONDS="0.2") as stack:
        config = portal_config(origin, PORTAL_GAME_URL=stack["game"], PORTAL_MATCHMAKING_URL=stack["matchmaking"],
                               PORTAL_API_KEY=portal_key, PORTAL_PLAYER_SECRET=player_secret,
                               PORTAL_WEBHOOK_SECRET=hook_secret, PORTAL_PORT=str(port))
        log_path = tmp_path / "portal.log"
        with log_path.open("wb") as log:
            env = {**os.environ, **{k: v for k, v in config.items() if k.startswith("PORTAL_")}}
            process = subprocess.Popen([sys.executable, str(PORTAL / "app.py")], env=env,
                                       stdout=log, stderr=subprocess.STDOUT, cwd=ROOT, start_new_session=True)
        try:
            deadline = time.monotonic() + 30
            while True:
                assert process.poll() is None, log_path.read_text()
                try:
                    if httpx.get(f"{origin}/login", timeout=2).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                assert time.monotonic() < deadline, f"the portal did not start:\n{log_path.read_text()}"
                time.sleep(0.2)
            yield {"stack": stack, "origin": origin, "key": portal_key, "log": log_path,
                   "passwords": json.loads(config["TEST_PASSWORDS"])}
        finally:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=20)


def step(frame: Any, state: dict[str, str], mine: dict[str, int]) -> None:
    """One click of the player to move (test_web_client's choices): a chooser, Keep / Leave the king, a card and
    its target, a card bought at most twice, a setup square, up to two board actions a turn, else End turn."""
    chooser = frame.locator(".chooser button:not(.secondary)")
    special = frame.locator(".controls .buttons button, #keep-confirm", has_text=re.compile(r"^(Keep|Leave the king)"))
    targets = frame.locator("svg.board g.square.target")
    buy = frame.locator(".controls .buttons button", has_text="Buy an action card")
    card = frame.locator("#seats button.card:not(.selected)")
    selected = frame.locator("#seats button.card.selected")
    if chooser.count():
        click_and_wait(frame, chooser.first)
    elif special.count():
        click_and_wait(frame, special.first)
    elif card.count() and not selected.count():
        click_and_wait(frame, card.first)
    elif buy.count() and mine["acted"] == 0 and mine["bought"] < 2 and state["phase"] != "3":
        mine["bought"] += 1
        mine["acted"] += 1
        click_and_wait(frame, buy.first)
    elif state["stage"] != "turn" and targets.count():
        click_and_wait(frame, targets.first)
    elif selected.count():
        click_and_wait(frame, targets.first)
        if frame.locator(".square.selected").count():
            click_and_wait(frame, frame.locator("svg.board g.square.target").first)
    elif mine["acted"] < 2 and targets.count():
        builds = frame.locator("svg.board g.square.target[aria-label*='Build']")
        click_and_wait(frame, builds.first if builds.count() else targets.first)
        if frame.locator(".square.selected").count():
            click_and_wait(frame, frame.locator("svg.board g.square.target").first)
        mine["acted"] += 1
    else:
        click_and_wait(frame, frame.locator("#end-turn"))
        mine["acted"] = 0
    assert frame.locator("#alert").is_hidden(), frame.inner_text("#alert")


def rating_of(page: Any, user: str) -> tuple[float, int] | None:
    """The user's row of the portal's leaderboard (ordinal, games), if listed."""
    row = page.locator(f"#leaderboard tr[data-player='{user}']")
    if not row.count():
        return None
    return float(row.get_attribute("data-ordinal")), int(row.get_attribute("data-games"))


def service_deliveries(world: dict[str, Any]) -> list[dict[str, Any]]:
    """Every webhook delivery the game service holds for the portal's tenant, as the service reports it."""
    return httpx.get(f"{world['stack']['game']}/v1/webhooks/deliveries", params={"after": 0, "limit": 500},
                     headers={"X-API-Key": world["key"]}).json()["deliveries"]


def portal_log(world: dict[str, Any]) -> tuple[list[tuple[str, str, str]], Counter[str]]:
    """The portal's webhook lines (outcome, delivery id, type) so far, and the deliveries it recorded, each once."""
    logged = re.findall(r"webhook (recorded|duplicate) (\S+) (\S+)", world["log"].read_text())
    recorded = Counter(delivery for outcome, delivery, _ in logged if outcome == "recorded")
    assert all(n == 1 for n in recorded.values()), recorded
    return logged, recorded


def test_two_users_of_the_example_portal_play_a_rated_game_to_the_end(
        world: dict[str, Any], new_page: Any, console: Console, tmp_path: Path) -> None:
    origin, users = world["origin"], ("ada", "bob")
    pages: dict[str, Any] = {}
    initial: dict[str, float] = {}
    for user in users:  # two people, each in a browser of their own, log in to the portal
        page = pages[user] = new_page()
        page.goto(f"{origin}/login")
        page.fill("input[name=user]", user)
        page.fill("input[name=password]", world["passwords"][user])
        page.click("#login")
        page.wait_for_selector("#my-rating")
        assert page.get_attribute("#my-rating", "data-games") == "0" and rating_of(page, user) is None
        initial[user] = float(page.get_attribute("#my-rating", "data-ordinal"))
    for user in users:  # both ask for a rated game: the portal queues each at the matchmaker with their token
        pages[user].click("#play")
    for page in pages.values():
        page.wait_for_url(re.compile(r"/game/[^/]+$"), timeout=60_000)
    game_ids = {page.url.rsplit("/", 1)[1] for page in pages.values()}
    assert len(game_ids) == 1, game_ids
    game_id = game_ids.pop()
    frames = {}
    for user, page in pages.items():
        page.wait_for_function("() => document.getElementById('game').contentWindow !== null")
        frame = frames[user] = next(f for f in page.frames if "/play/" in f.url)
        assert "embed=1" in frame.url and "lang=en" in frame.url
        frame.wait_for_selector("svg.board")
        settled(frame)
        assert frame.locator("header, nav, .lobby, #new-game, a").count() == 0  # the embedded game only
        seats = frame.inner_text("#seats")  # the names the portal's tokens carry, on the matched game's seats
        assert "Ada" in seats and "Bob" in seats, seats

    # they play by clicks in their iframes, whoever is to move; each page shows the webhooks' "your turn" notices
    tallies = {user: {"acted": 0, "bought": 0} for user in users}
    heard_turn: set[str] = set()
    shot = False
    steps = 0
    deadline = time.monotonic() + 480
    while True:
        assert time.monotonic() < deadline, f"the game did not end in time ({steps} clicks)"
        states = {u: f.evaluate("() => ({...document.querySelector('main').dataset})") for u, f in frames.items()}
        if all(s["turn"] == "over" for s in states.values()):
            break
        mover = next((u for u, s in states.items() if s["busy"] == "0" and s["turn"] == "mine"), None)
        if mover is None:
            pages["ada"].wait_for_timeout(100)
            continue
        if mover not in heard_turn and "Your turn in game " + game_id[:8] in pages[mover].inner_text("#notices"):
            heard_turn.add(mover)
        if not shot and states[mover]["phase"] == "2" and mover == "ada":
            settled(frames[mover])
            folder = Path(SHOTS) if SHOTS else tmp_path
            folder.mkdir(parents=True, exist_ok=True)
            pages[mover].screenshot(path=str(folder / "example-portal.png"))
            shot = True
        step(frames[mover], states[mover], tallies[mover])
        steps += 1
    print(f"\n{steps} clicks; turn notices heard by {sorted(heard_turn)}")
    assert heard_turn == set(users), heard_turn

    # the end: the embedded client's message on the status line, the webhook's result line on each page
    for page in pages.values():
        page.wait_for_function("() => document.getElementById('status').textContent"
                               ".startsWith('Game over (completed)')")
        page.wait_for_function("g => document.getElementById('results').textContent"
                               ".includes(`Game ${g} ended (completed)`)", arg=game_id[:8])
    summary = httpx.get(f"{world['stack']['game']}/v1/games/{game_id}", headers={"X-API-Key": world["key"]}).json()
    assert summary["status"] == "over"

    # the game's end reached the portal once: one delivery at the service, recorded once by the portal
    ended = [d for d in service_deliveries(world) if d["game_id"] == game_id and d["type"] == "game.ended"]
    assert len(ended) == 1 and ended[0]["status"] == "delivered", ended
    logged, _ = portal_log(world)
    assert [d for _, d, kind in logged if kind == "game.ended"] == [ended[0]["delivery_id"]]

    # the matchmaker rated the game: both ratings changed on the portal's leaderboard
    for user, page in pages.items():
        deadline = time.monotonic() + 30
        while True:
            page.goto(f"{origin}/")
            now = rating_of(page, user)
            if now is not None and now[1] == 1:
                break
            assert time.monotonic() < deadline, f"{user}'s rating did not take the game in"
            page.wait_for_timeout(300)
        assert now[0] != initial[user], (user, now, initial[user])
        assert page.get_attribute("#my-rating", "data-games") == "1"
        assert game_id[:8] in page.inner_text("#games")

    # the portal asked for the game's analysis at game.ended; analysis.ready became a link that opens the replay
    link = pages["ada"].locator("#results a", has_text=f"Your analysis of game {game_id[:8]} is ready")
    link.wait_for(timeout=120_000)
    link.click()
    pages["ada"].wait_for_url(re.compile(rf"/play/#game={game_id}&token=[^&]+&replay=1&analysis=quick$"))
    pages["ada"].wait_for_selector("#analysis-curve", timeout=120_000)
    assert pages["ada"].locator("#marked-turns").count() == 1
    deliveries = [d for d in service_deliveries(world) if d["game_id"] == game_id]
    assert [d["type"] for d in deliveries].count("analysis.ready") == 1
    # Every webhook of the game reached the portal and was recorded once; checked only now, after the analysis's:
    # the portal asked for it at game.ended, so its delivery may still be on its way when the game's end shows.
    _, recorded = portal_log(world)
    assert {d["delivery_id"] for d in deliveries} <= set(recorded)
    pages["ada"].goto(f"{origin}/")

    # the other path: an unrated game the portal creates itself, with its own id, a label and the players' names
    pages["ada"].click("button:has-text('Challenge bob')")
    pages["ada"].wait_for_url(re.compile(r"/game/[^/]+$"))
    challenge = pages["ada"].url.rsplit("/", 1)[1]
    frame = next(f for f in pages["ada"].frames if "/play/" in f.url)
    frame.wait_for_selector("svg.board")
    assert "Ada · blue · you (ada)" in frame.inner_text("#seats") and "Bob · orange" in frame.inner_text("#seats")
    pages["bob"].goto(f"{origin}/")
    listed = pages["bob"].locator("#games li", has_text=challenge[:8])
    assert re.search(r"active · challenge-[0-9a-f]{16}", listed.inner_text()), listed.inner_text()
    listed.locator("a").click()  # bob's own seat token, kept by the portal, opens his seat of it
    pages["bob"].wait_for_url(f"**/game/{challenge}")
    pages["bob"].wait_for_function("() => document.getElementById('game').contentWindow !== null")
    frame = next(f for f in pages["bob"].frames if "/play/" in f.url)
    frame.wait_for_selector("svg.board")
    assert "Bob · orange · you (bob)" in frame.inner_text("#seats") and "Ada · blue" in frame.inner_text("#seats")
    assert console.unexpected() == []
