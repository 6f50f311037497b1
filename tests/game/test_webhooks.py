"""Webhooks from the game service, against a real HTTP receiver on a loopback port, on SQLite and on
PostgreSQL:

* a game's webhooks reach its tenant's endpoint, signed with that tenant's secret, never another tenant's, and
  are re-read from a cursor (``GET /v1/webhooks/deliveries``) by the tenant alone;
* a whole game's webhooks say what a portal needs (turns, the result) and nothing a seat may not see;
* delivery under faults: the endpoint down, answering 500, slower than the timeout: every webhook is delivered
  at least once, none is lost, every signature verifies, and a repeated delivery carries the same id and body;
* the delivery worker as a process of its own (``python -m torres_game webhooks``) SIGKILLed mid-batch on
  PostgreSQL and started again: the same.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from polling import wait_until
from serving import free_port

import torres_rules as tr
from torres_game.app import create_app
from torres_game.service import GameService
from torres_game.store.base import EventStore, WebhookDelivery
from torres_game.webhooks import TYPES, WebhookWorker
from torres_service import webhooks as signing

from .conftest import ADMIN, MIGRATIONS, SERVICE, bearer, make_config
from .online_helpers import Clock, act
from .tenant_helpers import add_key, cli

ROOT = Path(__file__).resolve().parents[2]
SECRET = "a-portal-chosen-webhook-secret"
HUMANS = [{"kind": "human", "player_id": "p0", "display_name": "Ada"}, {"kind": "human", "player_id": "p1"}]


@pytest.fixture(autouse=True)
def loopback_allowed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The receivers here are on loopback, which a webhook may reach only when the allow setting lists it (the
    processes these tests start inherit it)."""
    monkeypatch.setenv("TORRES_WEBHOOK_ALLOW_NETWORKS", "127.0.0.0/8")



@dataclass(frozen=True)
class Received:
    headers: dict[str, str]
    body: bytes
    answered: int  # the status this endpoint answered (0: it was too slow, the sender had given up)

    @property
    def delivery_id(self) -> str:
        return self.headers["X-Torres-Delivery"]

    @property
    def doc(self) -> dict[str, Any]:
        return json.loads(self.body)


class Receiver:
    """A portal's webhook endpoint: answers 200 (``ok``), 500 (``error``), or sleeps ``delay`` seconds first
    (``slow``); ``stop()`` takes it off the network (connection refused) until ``start()``."""

    def __init__(self, delay: float = 0.0) -> None:
        self.port = free_port()
        self.mode = "ok"
        self.delay = delay
        self.received: list[Received] = []
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hooks"

    def start(self) -> None:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                mode = receiver.mode
                if mode == "slow" or receiver.delay:
                    time.sleep(receiver.delay)
                status = 500 if mode == "error" else 200
                with receiver._lock:
                    receiver.received.append(Received(dict(self.headers.items()), body,
                                                      0 if mode == "slow" else status))
                try:
                    self.send_response(status)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                except OSError:
                    pass  # the sender gave up waiting

            def log_message(self, *_: Any) -> None:
                pass

        ThreadingHTTPServer.allow_reuse_address = True
        self._server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def snapshot(self) -> list[Received]:
        with self._lock:
            return list(self.received)

    def accepted(self) -> dict[str, Received]:
        return {r.delivery_id: r for r in self.snapshot() if r.answered == 200}


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    endpoint = Receiver()
    yield endpoint
    endpoint.stop()


def outbox(store: EventStore, tenant: str | None = None) -> list[WebhookDelivery]:
    rows: list[WebhookDelivery] = []
    while page := store.webhook_deliveries(after=rows[-1].seq if rows else 0, limit=500, tenant=tenant):
        rows.extend(page)
    return rows


def assert_signed(received: list[Received], secret: str) -> None:
    for r in received:
        assert signing.verify(secret, r.headers, r.body), r.headers
        assert r.doc["id"] == r.delivery_id


def assert_duplicates_agree(received: list[Received]) -> None:
    """Every post of one delivery id carried the same body: a receiver may deduplicate by the id alone."""
    bodies: dict[str, bytes] = {}
    for r in received:
        assert bodies.setdefault(r.delivery_id, r.body) == r.body, r.delivery_id


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Both backends (PostgreSQL: the session's database, so each test names its tenants afresh)."""
    if request.param == "postgres":
        return str(request.getfixturevalue("pg_url"))
    return f"sqlite:///{tmp_path / 'hooks.sqlite3'}"


# -- tenants, signatures and the re-read cursor --------------------------------------------------------------

@pytest.fixture
def two_portals(database_url: str, tmp_path: Path) -> Iterator[tuple[Flask, dict[str, Any]]]:
    """Two tenants (fresh names: the PostgreSQL database is the session's), each with its endpoint and secret."""
    tenants = tmp_path / "tenants.json"
    names = {"a": f"alpha{uuid.uuid4().hex[:6]}", "b": f"beta{uuid.uuid4().hex[:6]}"}
    receivers = {"a": Receiver(), "b": Receiver()}
    secrets, keys = {}, {}
    for role, name in names.items():
        cli(tenants, "add-tenant", name)
        keys[role] = add_key(tenants, name, "games,admin")
        secrets[role] = cli(tenants, "set-webhook", name, "--url", receivers[role].url)["secret"]
    keys["a_mm"] = add_key(tenants, names["a"], "matchmaking")
    keys["internal"] = add_key(tenants, "matcher", "games", internal=True)
    app = create_app(make_config(database_url, tenants_file=str(tenants), webhook_interval=0.05))
    yield app, {"names": names, "receivers": receivers, "secrets": secrets, "keys": keys}
    app.extensions["torres_game"].close()
    for r in receivers.values():
        r.stop()


def test_a_games_webhooks_reach_its_tenant_alone_signed_and_re_readable(
        two_portals: tuple[Flask, dict[str, Any]]) -> None:
    app, world = two_portals
    client, svc = app.test_client(), app.extensions["torres_game"]
    receivers, secrets, keys = world["receivers"], world["secrets"], world["keys"]

    def create(role: str) -> dict[str, Any]:
        response = client.post("/v1/games", headers={"X-API-Key": keys[role]},
                               json={"seats": HUMANS, "external_id": f"portal-{role}", "labels": ["ladder"]})
        assert response.status_code == 201, response.get_json()
        return response.get_json()

    game_a, game_b = create("a"), create("b")
    rng = random.Random(7)
    for _ in range(6):  # the setup placements: each a turn of its own
        act(svc, game_a, rng.choice(tr.legal_actions(svc.games.current(game_a["game_id"]).state)))
    assert client.post(f"/v1/games/{game_a['game_id']}/resign", json={"seat": 1},
                       headers=bearer(game_a["seats"][1]["token"])).status_code == 201
    assert client.post(f"/v1/games/{game_b['game_id']}/abandon", json={"reason": "nobody came"},
                       headers={"X-API-Key": keys["b"]}).status_code == 201

    store = svc.store
    rows = {role: outbox(store, world["names"][role]) for role in ("a", "b")}
    wait_until(lambda: all(set(receivers[r].accepted()) >= {w.delivery_id for w in rows[r]} for r in ("a", "b")),
               30, "every webhook at its endpoint")
    for role, other in (("a", "b"), ("b", "a")):
        got = receivers[role].snapshot()
        assert {r.doc["game_id"] for r in got} == {(game_a if role == "a" else game_b)["game_id"]}
        assert {r.doc["tenant"] for r in got} == {world["names"][role]}
        assert_signed(got, secrets[role])
        assert not any(signing.verify(secrets[other], r.headers, r.body) for r in got)
        assert_duplicates_agree(got)
        for r in got:  # no seat token of either game, nothing hidden
            assert not any(seat["token"] in r.body.decode() for g in (game_a, game_b) for seat in g["seats"])

    kinds = [w.type for w in rows["a"]]
    assert kinds[:2] == ["game.created", "turn.started"] and kinds[-2:] == ["seat.resigned", "game.ended"]
    assert kinds.count("turn.started") >= 2
    created = rows["a"][0].payload
    assert (created["external_id"], created["labels"]) == ("portal-a", ["ladder"])
    assert created["data"]["seats"][0] == {"seat": 0, "kind": "human", "player_id": "p0", "display_name": "Ada"}
    turn = rows["a"][1].payload["data"]
    assert turn["player_id"] == f"p{turn['seat']}" and turn["deadline"] is None  # an untimed game
    ended = rows["a"][-1].payload["data"]
    assert ended["reason"] == "forfeit" and ended["ranks"][1] == 1 and ended["rated"] is True
    assert "seed" not in ended
    assert [w.type for w in rows["b"]] == ["game.created", "turn.started", "game.abandoned", "game.ended"]
    assert rows["b"][-1].payload["data"]["reason"] == "abandoned" and rows["b"][-1].payload["data"]["rated"] is False

    # the re-read: the tenant's own deliveries, in order, page by page from the cursor, with their payloads
    def pages(headers: dict[str, str], limit: int) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        after = 0
        while True:
            response = client.get(f"/v1/webhooks/deliveries?after={after}&limit={limit}", headers=headers)
            assert response.status_code == 200, response.get_json()
            page = response.get_json()
            if not page["deliveries"]:
                assert page["next_after"] == after
                return out
            out.extend(page["deliveries"])
            after = page["next_after"]

    wait_until(lambda: all(w.status == "delivered" for w in outbox(store, world["names"]["a"])), 30, "logged")
    read_a = pages({"X-API-Key": keys["a"]}, 3)
    assert [d["delivery_id"] for d in read_a] == [w.delivery_id for w in rows["a"]]
    assert [d["cursor"] for d in read_a] == sorted(d["cursor"] for d in read_a)
    assert all(d["status"] == "delivered" and d["attempts"] == 1 and d["last_status"] == 200 for d in read_a)
    assert [d["payload"] for d in read_a] == [w.payload for w in rows["a"]]
    assert {d["game_id"] for d in pages({"X-API-Key": keys["b"]}, 100)} == {game_b["game_id"]}
    assert {d["delivery_id"] for d in pages(ADMIN, 1000)} >= {w.delivery_id for r in rows.values() for w in r}
    refusals = [({}, 401, "unauthenticated"), ({"X-API-Key": "trs_" + "x" * 43}, 401, "invalid_credentials"),
                ({"X-API-Key": keys["a_mm"]}, 403, "insufficient_scope"),
                ({"X-API-Key": keys["internal"]}, 403, "insufficient_scope")]
    for headers, status, code in refusals:
        response = client.get("/v1/webhooks/deliveries", headers=headers)
        assert (response.status_code, response.get_json()["code"]) == (status, code), headers


def test_a_whole_games_webhooks_follow_its_turns_and_hide_nothing(tmp_path: Path, receiver: Receiver) -> None:
    """A complete game on the embedded default (``TORRES_WEBHOOK_URL``/``SECRET`` for tenant ``default``)."""
    app = create_app(make_config(f"sqlite:///{tmp_path / 'whole.sqlite3'}", webhook_url=receiver.url,
                                 webhook_secret=SECRET, webhook_interval=0))
    client, svc = app.test_client(), app.extensions["torres_game"]
    try:
        game = client.post("/v1/games", headers=SERVICE, json={"seats": HUMANS}).get_json()
        rng = random.Random(29)
        movers: list[int] = []  # the seat whose clock runs, each time it changes or starts again
        turn: tuple[int | None, str | None] = (None, None)
        while not (folded := svc.games.current(game["game_id"])).over:
            if (folded.life.mover, folded.life.turn_start) != turn:
                turn = (folded.life.mover, folded.life.turn_start)
                movers.append(folded.to_move)
            act(svc, game, rng.choice(tr.legal_actions(folded.state)))
        rows = outbox(svc.store)
        assert {w.type for w in rows} == {"game.created", "turn.started", "game.ended"}
        assert [w.payload["data"]["seat"] for w in rows if w.type == "turn.started"] == movers
        ended = rows[-1].payload["data"]
        assert ended["reason"] == "completed" and ended["rated"] is True and len(ended["ranks"]) == 2
        position = client.get(f"/v1/games/{game['game_id']}/state", headers=ADMIN).get_json()["position"]
        every = json.dumps([w.payload for w in rows])
        assert not any(seat["token"] in every for seat in game["seats"])
        hidden = {"hand", "hands", "deck", "decks", "seed", "salt", "card", "cards", "token"}
        assert not hidden & _keys([w.payload for w in rows])
        assert position["scores"] == ended["scores"]
        worker = WebhookWorker(svc.store, svc.access.registries, svc.config)
        try:
            while worker.deliver_due():
                pass
        finally:
            worker.close()
        assert set(receiver.accepted()) == {w.delivery_id for w in rows}
        assert_signed(receiver.snapshot(), SECRET)
    finally:
        svc.close()


def _keys(doc: Any) -> set[str]:
    if isinstance(doc, dict):
        return set(doc) | {k for v in doc.values() for k in _keys(v)}
    if isinstance(doc, list):
        return {k for v in doc for k in _keys(v)}
    return set()


# -- faults ---------------------------------------------------------------------------------------------------



def test_delivery_survives_an_endpoint_down_failing_and_too_slow(own_database: str, tmp_path: Path) -> None:
    down = Receiver(delay=0.0)
    down.stop()  # the portal's endpoint is down from the start
    tenants = tmp_path / "tenants.json"
    name = f"faulty{uuid.uuid4().hex[:6]}"
    cli(tenants, "add-tenant", name)
    key = add_key(tenants, name, "games")
    cli(tenants, "set-webhook", name, "--url", down.url, "--secret", SECRET)
    # Every row of the endpoint in one look, and no circuit: this is each row's own back-off (the endpoint's
    # circuit and its cap are the isolation tests').
    app = create_app(make_config(own_database, tenants_file=str(tenants), webhook_interval=0, webhook_timeout=0.4,
                                 webhook_attempts=5, webhook_endpoint_concurrency=8, webhook_circuit=0))
    svc: GameService = app.extensions["torres_game"]
    clock = Clock()  # the worker's: moved past each back-off by the test (the wait itself is not tested)
    worker = WebhookWorker(svc.store, svc.access.registries, svc.config, clock=clock)
    client: FlaskClient = app.test_client()
    try:
        games = [client.post("/v1/games", headers={"X-API-Key": key}, json={"seats": HUMANS}).get_json()
                 for _ in range(3)]
        expected = {w.delivery_id for w in outbox(svc.store, name)}
        assert len(expected) == 6 and {d.split(".", 1)[0] for d in expected} == {g["game_id"] for g in games}

        def attempt_all() -> int:
            claimed = worker.deliver_due()
            assert worker.deliver_due() == 0  # the failed ones wait for their back-off
            return claimed

        clock.advance(1)  # past the appends
        assert attempt_all() == 6  # connection refused
        log = {w.delivery_id: w for w in outbox(svc.store, name)}
        assert {(w.status, w.attempts, w.last_status, w.last_error) for w in log.values()} == {
            ("pending", 1, None, "ConnectError")}
        clock.advance(signing.MAX_BACKOFF + 1)
        down.start()
        down.mode = "error"
        assert attempt_all() == 6  # 500
        assert {(w.attempts, w.last_status) for w in outbox(svc.store, name)} == {(2, 500)}
        clock.advance(signing.MAX_BACKOFF + 1)
        down.mode, down.delay = "slow", 1.0  # answers after the sender's 0.4 s timeout
        assert attempt_all() == 6
        assert {(w.attempts, w.last_error) for w in outbox(svc.store, name)} == {(3, "ReadTimeout")}
        clock.advance(signing.MAX_BACKOFF + 1)
        down.mode, down.delay = "ok", 0.0
        assert attempt_all() == 6
        log = {w.delivery_id: w for w in outbox(svc.store, name)}
        assert {(w.status, w.attempts, w.last_status) for w in log.values()} == {("delivered", 4, 200)}
        wait_until(lambda: len(down.snapshot()) == 18, 10, "the slow answers recorded")
        got = down.snapshot()
        assert set(down.accepted()) == expected  # none lost
        assert {r.delivery_id for r in got if r.answered != 200} == expected  # the same ids before
        assert_signed(got, SECRET)
        assert_duplicates_agree(got)
        # a delivery past its attempts is given up, and stays re-readable
        down.mode = "error"
        client.post(f"/v1/games/{games[0]['game_id']}/abandon", headers={"X-API-Key": key}, json={"reason": "x"})
        for _ in range(5):
            clock.advance(signing.MAX_BACKOFF + 1)
            worker.deliver_due()
        late = [w for w in outbox(svc.store, name) if w.delivery_id not in expected]
        assert {(w.type, w.status, w.attempts) for w in late} == {("game.abandoned", "failed", 5),
                                                                  ("game.ended", "failed", 5)}
    finally:
        worker.close()
        svc.close()
        down.stop()


@pytest.mark.postgres
def test_a_delivery_worker_killed_mid_batch_loses_nothing(
        throwaway_database: Callable[[str], Any], tmp_path: Path) -> None:
    receiver = Receiver(delay=0.15)  # slow enough that a batch is in flight when the worker dies
    tenants = tmp_path / "tenants.json"
    cli(tenants, "add-tenant", "portal")
    key = add_key(tenants, "portal", "games")
    cli(tenants, "set-webhook", "portal", "--url", receiver.url, "--secret", SECRET)
    with throwaway_database("torres_hooks_kill") as url:
        app = create_app(make_config(url, tenants_file=str(tenants), webhook_interval=0))
        svc: GameService = app.extensions["torres_game"]
        client = app.test_client()
        env = {**os.environ, "DATABASE_URL": url, "TORRES_TENANTS_FILE": str(tenants),
               "TORRES_MIGRATIONS_DIR": str(MIGRATIONS), "TORRES_WEBHOOK_LEASE": "2",
               "TORRES_WEBHOOK_TIMEOUT": "1", "TORRES_WEBHOOK_BATCH": "12",
               "TORRES_WEBHOOK_CONCURRENCY": "3", "TORRES_WEBHOOK_INTERVAL": "0.05", "TORRES_JSON_LOGS": "1",
               "TORRES_WEBHOOK_METRICS_PORT": "0"}

        def worker(n: int) -> subprocess.Popen[bytes]:
            out = (tmp_path / f"worker-{n}.log").open("wb")
            return subprocess.Popen([sys.executable, "-m", "torres_game", "webhooks"], env=env, cwd=ROOT,
                                    stdout=out, stderr=subprocess.STDOUT)

        try:
            games = [client.post("/v1/games", headers={"X-API-Key": key}, json={"seats": HUMANS}).get_json()
                     for _ in range(20)]
            first = worker(1)
            wait_until(lambda: len(receiver.snapshot()) >= 4, 30, "the first deliveries")
            first.send_signal(signal.SIGKILL)
            first.wait(10)
            time.sleep(0.5)  # the posts it had in flight reach the receiver (which answers after 0.15 s)
            pending = [w for w in outbox(svc.store, "portal") if w.status == "pending"]
            assert pending, "the worker finished before it was killed"
            in_flight = {r.delivery_id for r in receiver.snapshot()} & {w.delivery_id for w in pending}
            # more webhooks while no worker runs, then a new worker
            for game in games[:5]:
                client.post(f"/v1/games/{game['game_id']}/abandon", headers={"X-API-Key": key}, json={"reason": "k"})
            second = worker(2)
            try:
                wait_until(lambda: all(w.status == "delivered" for w in outbox(svc.store, "portal")), 90,
                           "every webhook delivered after the restart")
            finally:
                second.send_signal(signal.SIGTERM)
                assert second.wait(20) == 0, (tmp_path / "worker-2.log").read_text()
            rows = outbox(svc.store, "portal")
            assert len(rows) == 20 * 2 + 5 * 2
            got = receiver.snapshot()
            assert set(receiver.accepted()) == {w.delivery_id for w in rows}  # every one at least once
            assert in_flight, "nothing was in flight when the worker died"
            repeated = {r.delivery_id for r in got if sum(x.delivery_id == r.delivery_id for x in got) > 1}
            assert in_flight <= repeated  # what the killed worker had posted was posted again, same id
            assert_signed(got, SECRET)
            assert_duplicates_agree(got)
        finally:
            svc.close()
            receiver.stop()


def test_every_webhook_type_is_documented() -> None:
    text = (ROOT / "docs" / "integration.md").read_text()
    for kind in TYPES:
        assert f"`{kind}`" in text, kind


def test_a_delivery_id_is_written_once_and_a_second_fails_the_append_whole(database_url: str) -> None:
    """A delivery id names a game, a version and a type, so no append can rightly write one twice: the outbox
    refuses the second (no conflict is skipped silently), and the append that carried it records nothing."""
    from torres_game.store import open_store
    from torres_game.store.base import AppendOptions, GameRecord, GameSecret, NewEvent, WebhookRow

    store = open_store(database_url, migrations_dir=MIGRATIONS)
    store.migrate()
    tenant = f"once{uuid.uuid4().hex[:6]}"
    game_id = f"g-{uuid.uuid4().hex[:12]}"
    hook = WebhookRow(f"{game_id}.1.game.created", tenant, "game.created", {"id": f"{game_id}.1.game.created"})
    try:
        store.create_game(GameRecord(game_id, "", "rio_grande", False, {}, [{"seat": 0, "kind": "human"}],
                                     tenant=tenant, webhooks=True),
                          GameSecret(1, [None]), [NewEvent("game_created", {})], f"create:{game_id}", webhooks=[hook])
        again = WebhookRow(hook.delivery_id, tenant, "game.created", {"id": hook.delivery_id, "again": True})
        with pytest.raises(Exception, match=r"(?i)unique|duplicate"):
            store.append(game_id, 1, [NewEvent("action_applied", {"seat": 0})], "c1",
                         AppendOptions(fingerprint="f", webhooks=[again]))
        assert store.current_version(game_id) == 1
        [row] = outbox(store, tenant)
        assert row.payload == hook.payload
    finally:
        store.close()


@pytest.mark.postgres
def test_the_re_read_never_skips_a_webhook_that_commits_later(pg_url: str, tmp_path: Path,
                                                              receiver: Receiver) -> None:
    """A reader at the cursor waits for the appends in flight (the events' horizon, 0006/0012): a webhook whose seq
    was drawn first but commits last is never passed over by a page that already holds a later one."""
    import psycopg
    from psycopg.types.json import Jsonb

    tenants = tmp_path / "tenants.json"
    name = f"cursor{uuid.uuid4().hex[:6]}"
    cli(tenants, "add-tenant", name)
    key = add_key(tenants, name, "games")
    cli(tenants, "set-webhook", name, "--url", receiver.url, "--secret", SECRET)
    app = create_app(make_config(pg_url, tenants_file=str(tenants), webhook_interval=0))
    svc: GameService = app.extensions["torres_game"]
    client = app.test_client()
    try:
        first, second = (client.post("/v1/games", headers={"X-API-Key": key}, json={"seats": HUMANS}).get_json()
                         for _ in range(2))
        after = outbox(svc.store, name)[-1].seq
        conn = psycopg.connect(pg_url)  # an append whose transaction stays open, holding the lower seq
        row = conn.execute(
            "SELECT outcome FROM torres_append(%s, 1, 'open', NULL, now(), %s, NULL, NULL, NULL, false, NULL, NULL,"
            " %s)",
            (first["game_id"], Jsonb([{"type": "action_applied", "payload": {"seat": 0}, "schema_version": 1,
                                       "content_hash": "c" * 64}]),
             Jsonb([{"delivery_id": "open-hook", "tenant": name, "type": "turn.started", "payload": {}}])),
        ).fetchone()
        assert row == ("ok",)
        resigned = client.post(f"/v1/games/{second['game_id']}/resign", json={"seat": 0},
                               headers=bearer(second["seats"][0]["token"]))
        assert resigned.status_code == 201  # commits after the open one drew its seq
        page: list[WebhookDelivery] = []
        reader = threading.Thread(target=lambda: page.extend(svc.store.webhook_deliveries(after=after, tenant=name)))
        reader.start()
        time.sleep(0.5)
        assert reader.is_alive(), "the reader did not wait for the append in flight"
        conn.commit()
        conn.close()
        reader.join(10)
        assert page and page[0].delivery_id == "open-hook"
        assert [w.type for w in page[1:]] == ["seat.resigned", "game.ended"]
    finally:
        svc.close()


def test_a_process_without_the_tenants_file_writes_the_webhooks_of_a_game_that_has_them(
        database_url: str, tmp_path: Path, receiver: Receiver) -> None:
    """Whether a game's events cause webhooks is decided at its creation and stored: an AI worker or an enforcer,
    which read no tenants file, append its webhooks too; a game created while its tenant had no endpoint has none."""
    tenants = tmp_path / "tenants.json"
    name = f"stored{uuid.uuid4().hex[:6]}"
    cli(tenants, "add-tenant", name)
    key = add_key(tenants, name, "games")
    app = create_app(make_config(database_url, tenants_file=str(tenants), webhook_interval=0))
    worker_like = create_app(make_config(database_url, webhook_interval=0))  # no tenants file, no webhook settings
    svc, other = app.extensions["torres_game"], worker_like.extensions["torres_game"]
    client = app.test_client()
    try:
        before = client.post("/v1/games", headers={"X-API-Key": key}, json={"seats": HUMANS}).get_json()
        cli(tenants, "set-webhook", name, "--url", receiver.url, "--secret", SECRET)
        time.sleep(svc.config.tenants_reload + 0.1)
        game = client.post("/v1/games", headers={"X-API-Key": key}, json={"seats": HUMANS}).get_json()
        rng = random.Random(3)
        for g in (before, game):
            for _ in range(3):
                act(other, g, rng.choice(tr.legal_actions(other.games.current(g["game_id"]).state)))
        rows = outbox(svc.store, name)
        assert {w.game_id for w in rows} == {game["game_id"]}
        versions = {w.payload["version"] for w in rows if w.type == "turn.started"}
        assert versions - {1}, "the other process's appends wrote no turn.started"
    finally:
        svc.close()
        other.close()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def own_database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """Both backends, PostgreSQL in a database of the test's own: its claims lease every due row, of any tenant."""
    if request.param == "postgres":
        with request.getfixturevalue("throwaway_database")("torres_hooks_lease") as url:
            yield url
    else:
        yield f"sqlite:///{tmp_path / 'lease.sqlite3'}"


def test_a_claim_is_a_committed_lease_and_a_late_record_is_refused(own_database: str) -> None:
    """A claim commits its lease before anything is posted (no transaction stays open across the network): while
    it lasts no other claim gets the row, once it has passed the next claim does, and the first claimant's late
    record is then refused while the second's counts, once."""
    from datetime import UTC, datetime, timedelta

    from torres_game.store import open_store
    from torres_game.store.base import GameRecord, GameSecret, NewEvent, WebhookOutcome, WebhookRow

    first = open_store(own_database, migrations_dir=MIGRATIONS)
    second = open_store(own_database, migrations_dir=MIGRATIONS)
    first.migrate()
    tenant = f"lease{uuid.uuid4().hex[:6]}"
    game_id = f"g-{uuid.uuid4().hex[:12]}"
    hook = WebhookRow(f"{game_id}.1.game.created", tenant, "game.created", {"id": f"{game_id}.1.game.created"})
    first.create_game(GameRecord(game_id, "", "rio_grande", False, {}, [{"seat": 0, "kind": "human"}],
                                 tenant=tenant, webhooks=True),
                      GameSecret(1, [None]), [NewEvent("game_created", {})], f"create:{game_id}", webhooks=[hook])
    now = datetime.now(UTC) + timedelta(seconds=1)
    try:
        [claimed] = [d for d in first.claim_webhooks("one", limit=10, per_endpoint=5, busy={}, served={}, lease=30,
                                                     clock=lambda: now) if d.tenant == tenant]
        # committed: another connection sees the lease at once, and within it claims nothing of this tenant
        assert not [d for d in second.claim_webhooks("two", limit=10, per_endpoint=5, busy={}, served={}, lease=30,
                                                     clock=lambda: now + timedelta(seconds=29)) if d.tenant == tenant]
        later = now + timedelta(seconds=31)
        [again] = [d for d in second.claim_webhooks("two", limit=10, per_endpoint=5, busy={}, served={}, lease=30,
                                                    clock=lambda: later) if d.tenant == tenant]
        assert again.seq == claimed.seq
        assert not first.record_webhook("one", WebhookOutcome(claimed.seq, True, 200), clock=lambda: later)
        assert second.record_webhook("two", WebhookOutcome(claimed.seq, True, 200), clock=lambda: later)
        assert not second.record_webhook("two", WebhookOutcome(claimed.seq, True, 200), clock=lambda: later)
        [row] = outbox(second, tenant)
        assert (row.status, row.attempts, row.last_status) == ("delivered", 1, 200)
    finally:
        first.close()
        second.close()


@pytest.mark.postgres
def test_a_claim_waiting_on_a_row_skips_it_when_its_failure_set_the_next_attempt_later(
        throwaway_database: Callable[[str], contextlib.AbstractContextManager[str]]) -> None:
    """Two claimants race for one due row: the second reads it as due, then waits on its lock while the first's
    failed attempt is recorded with a later next attempt. Under READ COMMITTED the waiting UPDATE re-checks only
    its own WHERE on the new row, so that WHERE must test the next attempt too, or the row is posted again at
    once instead of after its back-off."""
    from datetime import UTC, datetime, timedelta

    import psycopg

    from torres_game.store import open_store
    from torres_game.store.base import GameRecord, GameSecret, NewEvent, WebhookRow

    with throwaway_database("torres_hooks_race") as url:
        store = open_store(url, migrations_dir=MIGRATIONS)
        store.migrate()
        tenant, game_id = f"race{uuid.uuid4().hex[:6]}", f"g-{uuid.uuid4().hex[:12]}"
        hook = WebhookRow(f"{game_id}.1.game.created", tenant, "game.created", {"id": f"{game_id}.1.game.created"})
        store.create_game(GameRecord(game_id, "", "rio_grande", False, {}, [{"seat": 0, "kind": "human"}],
                                     tenant=tenant, webhooks=True),
                          GameSecret(1, [None]), [NewEvent("game_created", {})], f"create:{game_id}", webhooks=[hook])
        now = datetime.now(UTC) + timedelta(seconds=1)
        claims: list[list[Any]] = []
        try:
            with psycopg.connect(url) as first:  # the first claimant's record, held open on the row's lock
                first.execute("SELECT seq FROM webhook_outbox WHERE tenant = %s FOR UPDATE", (tenant,))
                racer = threading.Thread(target=lambda: claims.append(store.claim_webhooks(
                    "two", limit=10, per_endpoint=5, busy={}, served={}, lease=30, clock=lambda: now)))
                racer.start()
                # seen from a session of its own: within first's transaction pg_stat_activity keeps its first look
                with psycopg.connect(url, autocommit=True) as watcher:
                    wait_until(lambda: watcher.execute(
                        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                        " AND wait_event_type = 'Lock' AND query LIKE '%webhook_outbox%'").fetchone() == (1,),
                        10, "the second claim waiting on the row", interval=0.05)
                first.execute("UPDATE webhook_outbox SET attempts = attempts + 1, last_status = 500,"
                              " next_attempt_at = %s WHERE tenant = %s", (now + timedelta(seconds=60), tenant))
            racer.join(timeout=10)
            assert not racer.is_alive()
            assert [d.seq for d in claims[0] if d.tenant == tenant] == []
            [row] = outbox(store, tenant)
            assert (row.status, row.attempts, row.last_status) == ("pending", 1, 500)
        finally:
            store.close()


def test_an_endpoint_that_hangs_holds_back_no_other_on_either_backend(own_database: str,
                                                                     receiver: Receiver) -> None:
    """A delivery thread as `make run` has it (SQLite) or a replica (PostgreSQL), every delivery setting at its
    default: a tenant whose endpoint accepts and never answers has hundreds of webhooks due, and another tenant's
    webhooks, written meanwhile, arrive within 2 s each, once; the hanging endpoint holds two of the worker's
    slots at a time, and after five failures none while its circuit is open."""
    from torres_game.config import Config
    from torres_game.store import open_store
    from torres_game.store.base import GameRecord, GameSecret, NewEvent, WebhookRow
    from torres_service.principals import Registries, Registry, Tenant, Webhook

    hung: list[socket.socket] = []
    hanging = socket.create_server(("127.0.0.1", 0))

    def accept() -> None:
        while True:
            try:
                hung.append(hanging.accept()[0])
            except OSError:
                return

    threading.Thread(target=accept, daemon=True).start()
    stuck, calm = f"stuck{uuid.uuid4().hex[:6]}", f"calm{uuid.uuid4().hex[:6]}"
    registry = Registry({stuck: Tenant(stuck, webhook=Webhook(f"http://127.0.0.1:{hanging.getsockname()[1]}/", SECRET)),
                         calm: Tenant(calm, webhook=Webhook(receiver.url, SECRET))})
    store = open_store(own_database, migrations_dir=MIGRATIONS)
    store.migrate()

    def write(tenant: str, count: int) -> list[str]:
        game_id = f"g-{uuid.uuid4().hex[:12]}"
        hooks = [WebhookRow(f"{game_id}.{n}.turn.started", tenant, "turn.started", {"id": f"{game_id}.{n}.x"})
                 for n in range(1, count + 1)]
        store.create_game(GameRecord(game_id, "", "rio_grande", False, {}, [{"seat": 0, "kind": "human"}],
                                     tenant=tenant, webhooks=True),
                          GameSecret(1, [None]), [NewEvent("game_created", {})], f"create:{game_id}", webhooks=hooks)
        return [h.delivery_id for h in hooks]

    write(stuck, 300)
    worker = WebhookWorker(store, Registries(registry), Config(database_url=own_database))
    stop = threading.Event()
    thread = threading.Thread(target=worker.run, args=(stop,), daemon=True)
    thread.start()
    written: dict[str, float] = {}
    arrived: dict[str, float] = {}

    def watch() -> None:  # when each of the calm tenant's webhooks was first seen at its endpoint
        while not stop.is_set():
            for r in receiver.snapshot():
                arrived.setdefault(r.delivery_id, time.monotonic())
            time.sleep(0.02)

    threading.Thread(target=watch, daemon=True).start()
    try:
        wait_until(lambda: len(hung) >= 2, 10, "the hanging endpoint's first attempts")
        for _ in range(30):
            at = time.monotonic()
            for delivery_id in write(calm, 1):
                written[delivery_id] = at
            time.sleep(0.1)
        wait_until(lambda: set(arrived) >= set(written), 10, "the calm tenant's webhooks")
    finally:
        stop.set()
        worker.wake()
        thread.join(15)
        worker.close()  # its attempts in flight end at their deadline, and are recorded
        hanging.close()
        for conn in hung:
            conn.close()
    got = receiver.snapshot()
    assert sorted(r.delivery_id for r in got) == sorted(written)  # each once
    assert max(arrived[d] - at for d, at in written.items()) < 2.0
    assert len(hung) <= 6  # two at a time, five failures, then the circuit: not 300 attempts
    rows = {w.delivery_id: w for w in outbox(store)}
    assert all(rows[d].status == "delivered" for d in written)
    stuck_rows = [w for w in outbox(store, stuck) if w.attempts]
    assert stuck_rows and {w.last_error for w in stuck_rows} <= {"ReadTimeout"}
    store.close()
