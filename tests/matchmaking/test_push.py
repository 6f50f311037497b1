"""Push for tickets: long-poll and server-sent events on a ticket, and signed callbacks with retries. Each call is
made by the ticket's player with their portal's token (``player=``; conftest.Players)."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from local_redis import LocalRedis
from serving import free_port
from werkzeug.serving import make_server

from torres_matchmaking.app import Services, create_app
from torres_matchmaking.config import Config
from torres_matchmaking.game_client import GameServiceClient
from torres_matchmaking.matcher import Matcher
from torres_matchmaking.store import Redis
from torres_matchmaking.wakeups import RedisWakeListener
from torres_matchmaking.webhooks import CallbackSender

from .conftest import API_KEY, PLAYER_SECRET, Players, answers, as_player

TICKET = {"player_counts": [2], "edition": "rio_grande", "master": False, "max_wait_seconds": None}
SECRET = "test-webhook-secret"
#: How soon a cancelled ticket's long-poll is answered when its notice wakes it: far below the 30-s timeout that
#: would answer it otherwise, and far above what a loaded machine's scheduling adds (1.05 s seen at load 9 on 2
#: cores). How fast a notice arrives is push_bench.py's figure, not a test's.
WOKEN = 10.0


@pytest.fixture(autouse=True)
def loopback_allowed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The callback receivers here are on loopback, which a callback may reach only when the allow setting lists
    it (read by the matchmaker's tickets and callback sender when they are made)."""
    monkeypatch.setenv("TORRES_WEBHOOK_ALLOW_NETWORKS", "127.0.0.0/8")


@pytest.fixture
def api(config: Config) -> Players:
    config = config.with_(webhook_secret=SECRET)
    return Players(create_app(config, services=Services.build(config)).test_client())


def _match_soon(store: Redis, config: Config, api: Players, partner: str, delay: float) -> threading.Thread:
    def run() -> None:
        time.sleep(delay)
        assert api.post("/v1/tickets", json=TICKET, player=partner).status_code == 201
        matcher = Matcher(store, config, GameServiceClient(config.game_service_url, API_KEY))
        try:
            assert matcher.tick().created == 1
        finally:
            matcher.close()

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def test_long_poll_returns_at_the_match_or_at_the_timeout(api: Players, store: Redis, config: Config) -> None:
    ticket = api.post("/v1/tickets", json=TICKET, player="poller").get_json()
    started = time.monotonic()
    same = api.get(f"/v1/tickets/{ticket['ticket_id']}/wait?status=queued&timeout=0.3", player="poller").get_json()
    assert same["status"] == "queued" and time.monotonic() - started >= 0.3
    at_once = api.get(f"/v1/tickets/{ticket['ticket_id']}/wait?timeout=30", player="poller").get_json()
    assert at_once["status"] == "queued"
    thread = _match_soon(store, config, api, "partner", 0.5)
    matched = api.get(f"/v1/tickets/{ticket['ticket_id']}/wait?status=queued&timeout=30", player="poller").get_json()
    thread.join()
    assert matched["status"] == "matched" and matched["seat_token"] and matched["game_id"]
    assert api.get(f"/v1/tickets/{ticket['ticket_id']}/wait?status=nonsense", player="poller").status_code == 400
    assert api.get("/v1/tickets/" + "f" * 32 + "/wait", player="poller").status_code == 404


def test_sse_opens_at_once_and_sends_each_change(api: Players, store: Redis, config: Config) -> None:
    ticket = api.post("/v1/tickets", json=TICKET, player="streamer").get_json()
    response = api.get(f"/v1/tickets/{ticket['ticket_id']}/stream?timeout=30", buffered=False, player="streamer")
    assert response.mimetype == "text/event-stream" and response.headers["Cache-Control"] == "no-cache"
    chunks = iter(response.response)
    assert next(chunks).decode() == ": connected\nretry: 2000\n\n"
    first = next(chunks).decode()
    assert first.startswith("event: ticket\n") and json.loads(first.split("data: ")[1])["status"] == "queued"
    thread = _match_soon(store, config, api, "stream-partner", 0.3)
    rest = [c.decode() for c in chunks]
    thread.join()
    events = [c for c in rest if not c.startswith(":")]
    assert [e.split("\n")[0] for e in events] == ["event: ticket", "event: finished"]
    assert json.loads(events[0].split("data: ")[1])["status"] == "matched"
    idle = api.post("/v1/tickets", json=TICKET, player="idle").get_json()["ticket_id"]
    short = api.get(f"/v1/tickets/{idle}/stream?timeout=0.2", buffered=False, player="idle")
    assert b"".join(short.response).decode().endswith("event: timeout\ndata: {}\n\n")


class Receiver:
    """A portal's callback endpoint: fails the first ``failures`` deliveries with 503, records all."""

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.received: list[tuple[dict[str, str], bytes]] = []
        port = free_port()
        self.url = f"http://127.0.0.1:{port}/hook"
        self._server = make_server("127.0.0.1", port, self._app, threaded=True)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def _app(self, environ: dict[str, Any], start_response: Any) -> list[bytes]:
        body = environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
        headers = {k[5:].replace("_", "-").lower(): v for k, v in environ.items() if k.startswith("HTTP_")}
        self.received.append((headers, body))
        ok = len(self.received) > self.failures
        start_response("204 No Content" if ok else "503 Busy", [])
        return []

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()


def test_callbacks_are_signed_retried_and_delivered_once(api: Players, store: Redis, config: Config) -> None:
    receiver = Receiver(failures=2)
    config = config.with_(webhook_secret=SECRET)
    sender = CallbackSender(store, config)
    matcher = Matcher(store, config, GameServiceClient(config.game_service_url, API_KEY), callbacks=sender)
    try:
        ids = [api.post("/v1/tickets", json={**TICKET, "callback_url": receiver.url}, player=p).get_json()
               ["ticket_id"] for p in ("hook-a", "hook-b")]
        deadline = time.monotonic() + 20
        while len([r for r in receiver.received if r[0].get("x-torres-delivery")]) < 4:  # 2 failed + 2 delivered
            assert time.monotonic() < deadline, receiver.received
            matcher.tick()
            time.sleep(0.1)
        for _ in range(5):
            matcher.tick()
        assert len(receiver.received) == 4  # nothing more once each was accepted
    finally:
        matcher.close()
        receiver.stop()
    delivered = {}
    for headers, body in receiver.received:
        expected = hmac.new(SECRET.encode(), headers["x-torres-timestamp"].encode() + b"." + body,
                            hashlib.sha256).hexdigest()
        assert hmac.compare_digest(headers["x-torres-signature"], f"sha256={expected}")
        doc = json.loads(body)
        assert doc["type"] == "ticket.matched"
        assert headers["x-torres-delivery"] == f"{doc['ticket']['ticket_id']}.matched"
        delivered[doc["ticket"]["ticket_id"]] = doc["ticket"]
    assert set(delivered) == set(ids)
    first = api.get(f"/v1/tickets/{ids[0]}", player="hook-a").get_json()
    assert {t["game_id"] for t in delivered.values()} == {first["game_id"]}


def test_a_callback_url_needs_a_secret_and_a_url(config: Config, api: Players) -> None:
    plain = Players(create_app(config, services=Services.build(config)).test_client())
    refused = plain.post("/v1/tickets", json={**TICKET, "callback_url": "http://x.test/h"}, player="nohook")
    assert refused.status_code == 400 and "callback_url" in refused.get_json()["errors"]
    bad = api.post("/v1/tickets", json={**TICKET, "callback_url": "ftp://x/h"}, player="badhook")
    assert bad.status_code == 400 and "callback_url" in bad.get_json()["errors"]


def test_a_callback_endpoint_that_hangs_holds_back_neither_the_matcher_nor_other_portals(
        api: Players, store: Redis, config: Config) -> None:
    """Callbacks are posted off the matcher's thread, at most two at once to one host: a portal whose endpoint
    accepts and never answers costs the matcher's tick nothing, and another portal's callbacks arrive while its
    attempts are still waiting for their deadline."""
    import socket as sockets

    hung: list[sockets.socket] = []
    hanging = sockets.create_server(("127.0.0.1", 0))

    def accept() -> None:
        while True:
            try:
                hung.append(hanging.accept()[0])
            except OSError:
                return

    threading.Thread(target=accept, daemon=True).start()
    receiver = Receiver(failures=0)
    config = config.with_(webhook_secret=SECRET, webhook_timeout=4.0)
    sender = CallbackSender(store, config)
    matcher = Matcher(store, config, GameServiceClient(config.game_service_url, API_KEY), callbacks=sender)
    hang_url = f"http://127.0.0.1:{hanging.getsockname()[1]}/hook"
    try:
        hanging_ids = [api.post("/v1/tickets", json={**TICKET, "callback_url": hang_url}, player=p).get_json()
                       ["ticket_id"] for p in ("hang-a", "hang-b", "hang-c", "hang-d")]
        started = time.monotonic()
        while len(hung) < 2 and time.monotonic() - started < 10:  # the hanging portal's callbacks in flight
            matcher.tick()
            time.sleep(0.05)
        assert len(hung) == 2  # two at once to that host, the other two wait their turn
        ids = [api.post("/v1/tickets", json={**TICKET, "callback_url": receiver.url}, player=p).get_json()
               ["ticket_id"] for p in ("calm-a", "calm-b")]
        started = time.monotonic()
        while len(receiver.received) < 2:
            tick = time.monotonic()
            matcher.tick()
            assert time.monotonic() - tick < 1.0, "a tick waited for a callback"
            assert time.monotonic() - started < 3.0, "the other portal's callbacks waited for the hanging one"
            time.sleep(0.05)
    finally:
        matcher.close()
        receiver.stop()
        hanging.close()
        for conn in hung:
            conn.close()
    assert {json.loads(body)["ticket"]["ticket_id"] for _, body in receiver.received} == set(ids)
    assert len(hanging_ids) == 4


@pytest.mark.parametrize("url", ["http://169.254.169.254/latest/meta-data/", "http://10.0.0.5/h",
                                 "http://[::1]:8080/h", "http://localhost:8080/h", "http://127.0.0.1:8080/h"])
def test_a_callback_url_inside_the_cluster_is_refused(config: Config, url: str,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Loopback, private, link-local and metadata addresses are refused when the ticket names them (400, with
    the field), unless the allow setting lists their range."""
    monkeypatch.delenv("TORRES_WEBHOOK_ALLOW_NETWORKS")
    config = config.with_(webhook_secret=SECRET)
    players = Players(create_app(config, services=Services.build(config)).test_client())
    refused = players.post("/v1/tickets", json={**TICKET, "callback_url": url}, player="inside")
    assert refused.status_code == 400, refused.get_json()
    assert refused.headers["Content-Type"].startswith("application/problem+json")
    assert "callback_url" in refused.get_json()["errors"]


def test_a_callback_whose_name_resolves_inside_the_cluster_is_never_posted(
        api: Players, store: Redis, config: Config, monkeypatch: pytest.MonkeyPatch) -> None:
    """DNS rebinding: a name accepted with the ticket that resolves to loopback when the callback is sent is not
    posted to (this machine's own name resolves to a non-public address); the attempt counts as failed."""
    import socket as sockets

    receiver = Receiver(failures=0)
    url = receiver.url.replace("127.0.0.1", sockets.gethostname())
    monkeypatch.delenv("TORRES_WEBHOOK_ALLOW_NETWORKS")
    config = config.with_(webhook_secret=SECRET)
    sender = CallbackSender(store, config)
    matcher = Matcher(store, config, GameServiceClient(config.game_service_url, API_KEY), callbacks=sender)
    try:
        ids = [api.post("/v1/tickets", json={**TICKET, "callback_url": url}, player=p).get_json()["ticket_id"]
               for p in ("rebind-a", "rebind-b")]
        deadline = time.monotonic() + 20
        while not all(int(store.client.hget(store.keys.ticket(t), "hook_attempts") or 0) >= 1 for t in ids):
            assert time.monotonic() < deadline, "no callback attempt was made"
            matcher.tick()
            time.sleep(0.1)
    finally:
        matcher.close()
        receiver.stop()
    assert receiver.received == []


# -- event-driven wake-ups (Redis sharded pub/sub, one listener per process) -----------------------------------

@pytest.fixture(scope="module")
def private_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalRedis]:
    """A Redis server of these tests' own: they kill its pub/sub connections and count every command it runs,
    which on the shared server would hit (and count) other work."""
    if shutil.which("redis-server") is None:  # pragma: no cover - depends on the machine
        pytest.skip("redis-server not reachable: the binary is not installed (apt-get install redis-server)")
    server = LocalRedis(tmp_path_factory.mktemp("push-redis"))
    yield server
    server.stop()


@pytest.fixture
def own(private_redis: LocalRedis, config: Config) -> Iterator[tuple[Config, Services, Players]]:
    private_redis.flush()
    cfg = config.with_(redis_url=private_redis.url)
    services = Services.build(cfg)
    yield cfg, services, Players(create_app(cfg, services=services).test_client())
    services.stop()
    private_redis.flush()


def _wait_in_thread(api: Players, ticket: dict[str, Any], timeout: float = 30) -> tuple[threading.Thread, list[Any]]:
    out: list[Any] = []

    def run() -> None:
        out.append(api.get(f"/v1/tickets/{ticket['ticket_id']}/wait?status=queued&timeout={timeout}",
                           player=ticket["player_id"]).get_json())
        out.append(time.monotonic())

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, out


def _stream_in_thread(api: Players, ticket: dict[str, Any]) -> tuple[threading.Thread, list[str]]:
    out: list[str] = []

    def run() -> None:
        response = api.get(f"/v1/tickets/{ticket['ticket_id']}/stream?timeout=20", buffered=False,
                           player=ticket["player_id"])
        out.extend(chunk.decode() for chunk in response.response)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, out


def _listener(services: Services) -> RedisWakeListener:
    listener = services.tickets.hub.listener
    assert isinstance(listener, RedisWakeListener) and listener.connected.wait(10)
    return listener


def _until(condition: Any, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.01)


def test_a_waiter_is_woken_by_a_match_made_in_another_process(api: Players, config: Config) -> None:
    """A matcher *process* matches the ticket; the API process's listener wakes the long-poll at once."""
    ticket = api.post("/v1/tickets", json=TICKET, player="far-waiter").get_json()
    thread, out = _wait_in_thread(api, ticket)
    hub = api.application.extensions["torres_matchmaking"].tickets.hub
    _until(lambda: hub.open_count >= 1, 10, "the long-poll to subscribe")
    assert api.post("/v1/tickets", json=TICKET, player="far-partner").status_code == 201
    env = {**os.environ, "REDIS_URL": config.redis_url, "GAME_SERVICE_URL": config.game_service_url,
           "GAME_SERVICE_API_KEY": API_KEY, "MM_TICK_SECONDS": "0.05", "LOG_LEVEL": "ERROR"}
    matcher = subprocess.Popen([sys.executable, "-m", "torres_matchmaking", "matcher", "--no-ratings"], env=env)
    try:
        thread.join(30)
        assert not thread.is_alive(), "the long-poll was not woken by the other process's match"
    finally:
        matcher.kill()
        matcher.wait(30)
    doc, woke_at = out
    assert doc["status"] == "matched" and doc["seat_token"]
    # The wake-up follows the match closely: the ticket's ended_at is the confirm's time.
    assert woke_at - time.monotonic() + time.time() - doc["ended_at"] < 2.0


def test_a_killed_listener_connection_loses_no_wake_up(own: tuple[Config, Services, Players],
                                                      private_redis: LocalRedis) -> None:
    """CLIENT KILL of the subscriber's connection: a change made at the very moment nobody listens (killed and
    changed in one round trip, before the client can even notice) is found by the re-check once subscribed
    again; a change made afterwards wakes the waiter as usual."""
    cfg, services, api = own
    listener = _listener(services)
    admin = private_redis.client()
    tickets = [api.post("/v1/tickets", json=TICKET, player=p).get_json() for p in ("k1", "k2")]
    ids = [t["ticket_id"] for t in tickets]
    first, out1 = _wait_in_thread(api, tickets[0])
    second, out2 = _wait_in_thread(api, tickets[1])
    _until(lambda: services.tickets.hub.open_count == 2, 10, "both waiters to subscribe")
    subscriptions = listener.subscriptions
    (pubsub_client,) = admin.client_list(_type="pubsub")
    store = services.store
    pool = ("rio_grande", False)
    pipe = admin.pipeline(transaction=False)
    pipe.execute_command("CLIENT", "KILL", "ID", pubsub_client["id"])
    store.scripts.run("cancel", [*store.keys.pool_keys(pool), store.keys.ticket(ids[0]), store.keys.ticket(ids[0])],
                      repr(time.time()), cfg.result_ttl, ids[0], "", cfg.claim_timeout, client=pipe)
    killed, cancelled = pipe.execute()
    assert killed == 1 and cancelled == [1, "cancelled"]  # its notice went to nobody
    first.join(15)
    assert not first.is_alive() and out1[0]["status"] == "cancelled"  # found by the re-check
    assert listener.subscriptions > subscriptions  # ... after the subscription was made again
    assert second.is_alive()  # the other ticket did not change: its waiter read once more and sleeps on
    _until(lambda: listener.connected.is_set(), 10, "the listener to be subscribed again")
    assert api.delete(f"/v1/tickets/{ids[1]}", player="k2").get_json()["status"] == "cancelled"
    second.join(15)
    assert not second.is_alive() and out2[0]["status"] == "cancelled"


def test_idle_waiters_cost_redis_nothing(own: tuple[Config, Services, Players],
                                         private_redis: LocalRedis) -> None:
    """60 long-polls and 20 streams idle for 3 s: Redis runs (almost) no command for them. Polling every 0.25 s,
    as before, would have run 80 × 12 = 960 reads."""
    _, services, api = own
    _listener(services)
    admin = private_redis.client()
    tickets = [api.post("/v1/tickets", json=TICKET, player=f"idle{i}").get_json() for i in range(80)]
    reads_before = int(admin.info("commandstats").get("cmdstat_hgetall", {}).get("calls", 0))
    waits = [_wait_in_thread(api, t, timeout=20) for t in tickets[:60]]
    streams = [_stream_in_thread(api, t) for t in tickets[60:]]
    _until(lambda: services.tickets.hub.open_count == 80, 10, "every waiter to subscribe")

    def calls() -> int:
        stats = admin.info("commandstats")
        return sum(int(v["calls"]) for k, v in stats.items() if k not in ("cmdstat_info",))

    _until(lambda: int(admin.info("commandstats")["cmdstat_hgetall"]["calls"]) >= reads_before + 80, 20,
           "every waiter's one read of its ticket")
    before = calls()
    time.sleep(3.0)
    during = calls() - before
    assert during <= 10, f"{during} Redis commands for 80 idle waiters in 3 s"
    assert api.delete(f"/v1/tickets/{tickets[0]['ticket_id']}", player="idle0").status_code == 200  # its waiter only
    waits[0][0].join(10)
    assert waits[0][1][0]["status"] == "cancelled" and all(t.is_alive() for t, _ in waits[1:])
    for t in tickets[1:]:
        api.delete(f"/v1/tickets/{t['ticket_id']}", player=t["player_id"])
    for t, _ in waits + streams:
        t.join(10)
    assert all(out[0]["status"] == "cancelled" for _, out in waits)
    assert all(out[-1] == "event: finished\ndata: {}\n\n" for _, out in streams)


def _cancel_wakes_its_waiter(api: Any, services: Services, ticket: dict[str, Any]) -> None:
    """A long-poll on ``ticket`` is answered by the ticket's cancel, within :data:`WOKEN`: woken by its notice
    (the ticket never expires, so nothing else answers it before its 30-s timeout)."""
    thread, out = _wait_in_thread(api, ticket)
    _until(lambda: services.tickets.hub.open_count == 1, 10, "the waiter to subscribe")
    cancelled_at = time.monotonic()
    assert api.delete(f"/v1/tickets/{ticket['ticket_id']}", player=ticket["player_id"]).status_code == 200
    thread.join(10)
    assert out[0]["status"] == "cancelled" and out[1] - cancelled_at < WOKEN


def test_embedded_mode_wakes_waiters_in_process() -> None:
    """No REDIS_URL: the scripts publish on the in-process fakeredis and the same listener wakes the waiter."""
    services = Services.build(Config(log_level="WARNING", player_token_secret=PLAYER_SECRET))
    api = Players(create_app(services.config, services=services).test_client())
    try:
        ticket = api.post("/v1/tickets", json=TICKET, player="embedded-waiter").get_json()
        _cancel_wakes_its_waiter(api, services, ticket)
    finally:
        services.stop()


def test_under_the_production_server_waits_are_greenlets_woken_by_push(private_redis: LocalRedis, config: Config,
                                                                       tmp_path: Path) -> None:
    """gunicorn with infra/gunicorn.conf.py (one gevent worker): 40 long-polls held at once by one worker cost
    Redis nothing while idle; a cancel wakes its waiter at once; SIGTERM ends the others at once (drain). The
    server's own output is printed when the test fails (it failed once in ~100 runs with every long-poll at once)."""
    import httpx

    root = Path(__file__).resolve().parents[2]
    private_redis.flush()
    port = free_port()
    env = {**os.environ, "GUNICORN_BIND": f"127.0.0.1:{port}", "WEB_CONCURRENCY": "1", "REDIS_URL": private_redis.url,
           "GAME_SERVICE_URL": config.game_service_url, "GAME_SERVICE_API_KEY": API_KEY, "LOG_LEVEL": "WARNING",
           "GUNICORN_LOG_LEVEL": "warning", "TORRES_PLAYER_TOKEN_SECRET": PLAYER_SECRET}
    server_log = tmp_path / "gunicorn.log"
    with server_log.open("wb") as output:
        server = subprocess.Popen([sys.executable, "-m", "gunicorn", "-c", str(root / "infra" / "gunicorn.conf.py"),
                                   "torres_matchmaking.wsgi:app"], env=env, cwd=root, stdout=output,
                                  stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    admin = private_redis.client()
    try:
        _until(lambda: answers(f"{base}/healthz"), 30, "gunicorn to serve")
        ids = [httpx.post(f"{base}/v1/tickets", json=TICKET, headers=as_player(f"g{i}")).json()["ticket_id"]
               for i in range(40)]
        owner = {t: f"g{i}" for i, t in enumerate(ids)}
        out: dict[str, tuple[str, float]] = {}

        def wait(ticket_id: str) -> None:
            doc = httpx.get(f"{base}/v1/tickets/{ticket_id}/wait", params={"status": "queued", "timeout": 30},
                            headers=as_player(owner[ticket_id]),
                            timeout=40).json()
            out[ticket_id] = (doc["status"], time.monotonic())

        reads_before = int(admin.info("commandstats").get("cmdstat_hgetall", {}).get("calls", 0))
        threads = [threading.Thread(target=wait, args=(t,), daemon=True) for t in ids]
        for thread in threads:
            thread.start()
        _until(lambda: len(admin.client_list(_type="pubsub")) == 1, 10, "the worker's listener")

        def stats() -> dict[str, int]:
            return {k: int(v["calls"]) for k, v in admin.info("commandstats").items() if k != "cmdstat_info"}

        # every long-poll has made its one read of its ticket (HGETALL), 40 more than before they started
        _until(lambda: stats().get("cmdstat_hgetall", 0) >= reads_before + 40, 20, "the long-polls' first reads")
        before = stats()
        time.sleep(2.0)
        after = stats()
        spent = {k: n - before.get(k, 0) for k, n in after.items() if n != before.get(k, 0)}
        assert sum(spent.values()) <= 6, spent  # 40 idle long-polls in one gevent worker: no polling
        assert not out
        cancelled_at = time.monotonic()
        assert httpx.delete(f"{base}/v1/tickets/{ids[0]}", headers=as_player("g0")).status_code == 200
        threads[0].join(5)
        status, woke = out[ids[0]]
        assert status == "cancelled" and woke - cancelled_at < WOKEN  # its notice, not its 30-s timeout
        drained_at = time.monotonic()
        os.killpg(server.pid, signal.SIGTERM)
        for thread in threads[1:]:
            thread.join(10)
        rest = [out.get(t) for t in ids[1:]]
        assert all(r is not None and r[0] == "queued" and r[1] - drained_at < 8 for r in rest), rest
    except BaseException:
        print("gunicorn's output:\n" + server_log.read_text(errors="replace")[-6000:])  # shown with the failure
        raise
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGKILL)
        server.wait(30)


def test_push_on_a_cluster_uses_each_pools_shard(redis_cluster: LocalRedis, config: Config) -> None:
    """On a 3-master cluster the listener subscribes to each pool's shard channel at the master owning it; a
    cancel in any pool wakes its waiter."""
    redis_cluster.flush()
    cfg = config.with_(redis_url=redis_cluster.url, redis_cluster=True)
    services = Services.build(cfg)
    api = Players(create_app(cfg, services=services).test_client())
    try:
        listener = _listener(services)
        masters = [redis.Redis(port=p) for p in redis_cluster.ports]
        subscribed = [len(m.client_list(_type="pubsub")) for m in masters]
        assert sum(subscribed) == len(services.store.keys.pools())  # one subscription per pool, at its master
        for edition, master in (("rio_grande", False), ("yucata", True), ("ravensburger", True)):
            ticket = api.post("/v1/tickets", json={**TICKET, "edition": edition, "master": master},
                              player=f"cl-{edition}-{master}").get_json()
            _cancel_wakes_its_waiter(api, services, ticket)
            _until(lambda: services.tickets.hub.open_count == 0, 10, "the waiter to leave")
        assert listener.reconnects == 0
    finally:
        services.stop()
        redis_cluster.flush()
