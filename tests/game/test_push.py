"""Real-time push: wake-ups across replicas, a lost listener, SSE resume, the WebSocket, hidden
information on every channel, the stream cap, draining on SIGTERM, and the API suites under the production
worker class (gunicorn with ``infra/gunicorn.conf.py``: gevent)."""

from __future__ import annotations

import contextlib
import http.client
import inspect
import json
import random
import signal
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
import simple_websocket
from flask import Flask
from flask.testing import FlaskClient

from torres_game.app import create_app
from torres_online.events import SECRET_ACTION_TYPES

from . import test_api_endpoints, test_api_errors, test_idempotent_creation
from .conftest import bearer, create_game, make_config, play_one, played_game
from .servers import HttpClient, Server, gunicorn
from .sse import parse_sse

pytestmark = pytest.mark.timeout(180)


@pytest.fixture(scope="module")
def push_db(throwaway_database: Callable[[str], contextlib.AbstractContextManager[str]]) -> Iterator[str]:
    with throwaway_database("torres_push_test") as url:
        yield url


@pytest.fixture(scope="module")
def replicas(push_db: str) -> Iterator[tuple[Server, Server]]:
    """Two app servers (gunicorn, production config, one gevent worker each) on one PostgreSQL database."""
    with gunicorn(push_db) as a, gunicorn(push_db) as b:
        yield a, b


def in_thread(func: Callable[[], Any]) -> tuple[threading.Thread, dict[str, Any]]:
    out: dict[str, Any] = {}

    def run() -> None:
        try:
            out["value"] = func()
        except BaseException as exc:  # re-raised by the test through out["error"]
            out["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, out


def result(thread: threading.Thread, out: dict[str, Any], timeout: float = 60) -> Any:
    thread.join(timeout)
    assert not thread.is_alive(), "the waiter hung"
    if "error" in out:
        raise out["error"]
    return out["value"]


def open_sse(port: int, path: str, headers: dict[str, str] | None = None) -> http.client.HTTPResponse:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", path, headers=headers or {})
    return conn.getresponse()


def read_events(response: http.client.HTTPResponse, until: Callable[[dict[str, Any]], bool]) -> list[dict[str, Any]]:
    """Read an SSE response event by event until ``until(event)`` is true (or the stream ends)."""
    events: list[dict[str, Any]] = []
    block = b""
    while True:
        line = response.readline()
        if not line:
            return events
        if line.strip():
            block += line
            continue
        parsed = parse_sse(block.decode())
        block = b""
        events.extend(parsed)
        if parsed and until(parsed[-1]):
            return events


# -- wake-ups across replicas and a lost listener ------------------------------------------------

@pytest.mark.postgres
def test_a_waiter_on_replica_a_is_woken_by_an_append_through_replica_b(replicas: tuple[Server, Server]) -> None:
    a, b = replicas
    game = create_game(a.client)  # type: ignore[arg-type]
    gid = game["game_id"]
    wait, waited = in_thread(lambda: a.client.get(f"/v1/games/{gid}/wait?version=1&timeout=30").get_json())
    stream = open_sse(a.port, f"/v1/games/{gid}/stream?version=1&timeout=30")
    assert stream.readline() == b": connected\n"  # the opening comment comes at once, before any change
    time.sleep(0.3)
    play_one(b.client, game, random.Random(1), 0)
    # Nothing polls: without the NOTIFY from B's append these would sleep their whole 30 s.
    assert result(wait, waited, timeout=20) == {"game_id": gid, "version": 2, "changed": True}
    events = read_events(stream, lambda e: e["event"] == "version")
    assert [(e["event"], e["data"]["version"]) for e in events] == [("version", 2)]


def listener_pids(url: str) -> list[int]:
    with psycopg.connect(url, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
            " AND application_name = 'torres-listener' AND pid <> pg_backend_pid()").fetchall()
    return [r[0] for r in rows]


@pytest.mark.postgres
def test_waiters_survive_a_killed_listener_connection(replicas: tuple[Server, Server], push_db: str) -> None:
    a, b = replicas
    game, other = create_game(a.client), create_game(a.client)  # type: ignore[arg-type]
    gid = game["game_id"]
    waiters = [in_thread(lambda: a.client.get(f"/v1/games/{gid}/wait?version=1&timeout=40").get_json())
               for _ in range(3)]
    short = in_thread(lambda: a.client.get(f"/v1/games/{other['game_id']}/wait?version=1&timeout=2").get_json())
    time.sleep(0.5)
    before = listener_pids(push_db)
    assert len(before) == 2  # one listening connection per process
    with psycopg.connect(push_db, autocommit=True) as conn:
        for pid in before:
            conn.execute("SELECT pg_terminate_backend(%s)", (pid,))
    # The listeners reconnect on their own; the waiters, which were asleep meanwhile, are still woken.
    deadline = time.monotonic() + 20
    while len(set(listener_pids(push_db)) - set(before)) < 2:
        assert time.monotonic() < deadline, "the listeners did not come back"
        time.sleep(0.1)
    play_one(b.client, game, random.Random(2), 0)
    for thread, out in waiters:
        assert result(thread, out, timeout=20) == {"game_id": gid, "version": 2, "changed": True}
    assert result(*short, timeout=10)["changed"] is False  # a wait on a quiet game ends at its timeout


@pytest.mark.postgres
def test_a_lost_listener_makes_waiters_read_again(pg_app: Flask, pg_url: str) -> None:
    """An append made while the listener is down is found by the re-check after the reconnect."""
    client = pg_app.test_client()
    service = pg_app.extensions["torres_game"]
    game = create_game(client)
    gid = game["game_id"]
    listener = service.hub.listener
    assert listener is not None and listener.connected.wait(10)
    sub = service.hub.subscribe(gid)
    try:
        play_one(client, game, random.Random(3), 0)  # a notice arrives normally (the creation's may come first) ...
        deadline = time.monotonic() + 10
        while sub.latest is None or sub.latest.version < 2:
            assert time.monotonic() < deadline and sub.wait(10)
        reconnects = listener.reconnects
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database()"
                         " AND application_name = 'torres-listener'")
        deadline = time.monotonic() + 20
        while listener.reconnects == reconnects or not listener.connected.is_set():
            assert time.monotonic() < deadline
            time.sleep(0.05)
        # ... and after a reconnect every subscriber is told to read its version again.
        deadline = time.monotonic() + 10
        while not sub.take_recheck():
            assert time.monotonic() < deadline and sub.wait(10)
    finally:
        service.hub.unsubscribe(sub)


# -- SSE ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("which", ["client", pytest.param("pg_client", marks=pytest.mark.postgres)])
def test_sse_resume_delivers_exactly_the_missed_versions(request: pytest.FixtureRequest, which: str) -> None:
    client: FlaskClient = request.getfixturevalue(which)
    gid = played_game(client, seed=4, moves=6)["game_id"]  # versions 2..7
    text = client.get(f"/v1/games/{gid}/stream?version=0&timeout=0.2", headers={"Last-Event-ID": "3"}) \
        .get_data(as_text=True)
    events = parse_sse(text)
    assert [(e["event"], e["id"]) for e in events] == [
        ("version", "4"), ("version", "5"), ("version", "6"), ("version", "7"), ("timeout", None)]
    assert events[-2]["data"]["to_move"] is not None and events[-1]["data"]["status"] == "active"
    bad = client.get(f"/v1/games/{gid}/stream", headers={"Last-Event-ID": "x1"})
    assert bad.status_code == 400 and bad.get_json()["code"] == "validation_failed"


def finish(client: Any, game: dict[str, Any], seed: int, *, start: int = 0) -> int:
    """Play random legal actions until the game ends (command ids from ``start``); returns the final version."""
    rng = random.Random(seed)
    n = start
    while True:
        body = play_one(client, game, rng, n)
        n += 1
        if body["events"][-1]["type"] == "game_ended":
            return body["version"]


def test_sse_of_a_finished_game_ends_with_game_over_not_timeout(client: FlaskClient) -> None:
    game = create_game(client)
    final = finish(client, game, 5)
    events = parse_sse(client.get(f"/v1/games/{game['game_id']}/stream?version={final - 1}&timeout=30")
                       .get_data(as_text=True))
    assert [(e["event"], e["data"]["version"]) for e in events] == [("version", final), ("game-over", final)]
    assert events[-1]["data"]["status"] == "over"


def test_the_stream_cap_answers_503_and_frees_its_slots(tmp_path: Path) -> None:
    app = create_app(make_config(f"sqlite:///{tmp_path / 'cap.sqlite3'}", max_streams=2))
    try:
        client = app.test_client()
        gid = create_game(client)["game_id"]
        waits = [in_thread(lambda: app.test_client().get(f"/v1/games/{gid}/wait?version=1&timeout=1.5"))
                 for _ in range(2)]
        time.sleep(0.5)
        refused = client.get(f"/v1/games/{gid}/stream?version=1&timeout=1")
        assert refused.status_code == 503 and refused.mimetype == "application/problem+json"
        assert refused.get_json()["code"] == "too_many_streams"
        assert client.get(f"/v1/games/{gid}/wait?version=1&timeout=1").status_code == 503
        for thread, out in waits:
            assert result(thread, out).status_code == 200
        assert client.get(f"/v1/games/{gid}/wait?version=1&timeout=0").status_code == 200  # slots came back
        assert app.extensions["torres_game"].hub.open_count == 0
    finally:
        app.extensions["torres_game"].close()


def open_push_connections(server: Server) -> float:
    """The server's own count of open waits and streams (``torres_open_push_connections`` on /metrics)."""
    text = server.client.get("/metrics").get_data(as_text=True)
    return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
               if line.startswith("torres_open_push_connections{"))


def test_a_client_that_stops_reading_is_dropped_while_a_reading_one_stays(tmp_path: Path) -> None:
    """Back-pressure: the server holds at most the one message it is writing for a client. A stream whose client
    stops reading fills the socket buffers, its next write waits past the send timeout and the stream is dropped
    (its slot freed); a client that keeps reading the same stream stays. Heartbeats every millisecond stand in
    for a busy game, so the buffers fill in seconds."""
    env = {"TORRES_STREAM_HEARTBEAT": "0.001", "TORRES_SEND_TIMEOUT": "0.5", "TORRES_STREAM_SEND_BUFFER": "16384"}
    with gunicorn(f"sqlite:///{tmp_path / 'slow.sqlite3'}", extra_env=env) as server:
        gid = create_game(server.client)["game_id"]
        path = f"/v1/games/{gid}/stream?version=1&timeout=120"
        slow = socket.socket()
        slow.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # before connect: the window stays small
        slow.connect(("127.0.0.1", server.port))
        slow.sendall(f"GET {path} HTTP/1.1\r\nHost: test\r\n\r\n".encode())
        reader = open_sse(server.port, path)
        received = [0]

        def keep_reading() -> None:
            # ends when the test closes the response under it (http.client then raises one of these)
            with contextlib.suppress(OSError, ValueError, AttributeError):
                while chunk := reader.read1(65536):
                    received[0] += len(chunk)

        thread = threading.Thread(target=keep_reading, daemon=True)
        thread.start()
        deadline = time.monotonic() + 40  # the streams themselves last 120 s
        while open_push_connections(server) != 1:  # the slow one dropped, the reading one still open
            assert time.monotonic() < deadline, f"{open_push_connections(server)} streams still open after 40 s"
            time.sleep(0.2)
        slow.settimeout(10)
        buffered = 0
        while chunk := slow.recv(65536):  # what the buffers held, then the end: the server closed it
            buffered += len(chunk)
        slow.close()
        before = received[0]
        time.sleep(1)
        assert received[0] > before, "the reading client was cut off too"
        assert thread.is_alive() and open_push_connections(server) == 1
        assert buffered < 8 * 1024 * 1024, f"{buffered} bytes were buffered for a client that did not read"
        reader.close()


# -- WebSocket and hidden information --------------------------------------------------------------

def ws_connect(port: int, path: str, headers: dict[str, str] | None = None) -> simple_websocket.Client:
    return simple_websocket.Client.connect(f"ws://127.0.0.1:{port}{path}", headers=headers or {})


def ws_messages(ws: simple_websocket.Client, until: Callable[[dict[str, Any]], bool]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    while True:
        raw = ws.receive(timeout=30)
        assert raw is not None, "no message within 30 s"
        out.append(json.loads(raw))
        if until(out[-1]):
            return out


def play_card_first(client: Any, game: dict[str, Any], rng: random.Random, n: int) -> dict[str, Any]:
    """Like ``play_one``, but buying and keeping cards whenever the rules allow, so secret actions come soon."""
    gid = game["game_id"]
    seat = client.get(f"/v1/games/{gid}").get_json()["to_move"]
    token = game["seats"][seat]["token"]
    legal = client.get(f"/v1/games/{gid}/legal-actions", headers=bearer(token)).get_json()
    cards = [a for a in legal["actions"] if a["type"] in ("buy_card", "keep_card")]
    action = rng.choice(cards or legal["actions"])
    response = client.post(f"/v1/games/{gid}/actions", headers=bearer(token), json={
        "seat": seat, "action": action, "expected_version": legal["version"], "command_id": f"cmd-{n}"})
    assert response.status_code == 201, response.get_json()
    return response.get_json()


@pytest.mark.postgres
def test_websocket_delivers_every_version_once_in_order_and_hides_other_seats(
    replicas: tuple[Server, Server],
) -> None:
    a, b = replicas
    game = create_game(a.client)  # type: ignore[arg-type]
    gid = game["game_id"]
    seat0 = ws_connect(a.port, f"/v1/games/{gid}/ws?version=0", bearer(game["seats"][0]["token"]))
    watcher = ws_connect(a.port, f"/v1/games/{gid}/ws?version=0")
    rng, n, others_kept = random.Random(6), 0, 0
    while others_kept < 1:  # play through the other replica until seat 1 has kept a card (a secret action)
        body = play_card_first(b.client, game, rng, n)
        n += 1
        assert body["events"][-1]["type"] != "game_ended"
        others_kept += sum(e["payload"]["seat"] == 1 and e["payload"]["action"]["type"] in SECRET_ACTION_TYPES
                           for e in body["events"] if e["type"] == "action_applied")
    now = body["version"]
    mine = ws_messages(seat0, lambda m: m["version"] == now)
    seen = ws_messages(watcher, lambda m: m["version"] == now)
    # The seat's events are exactly what GET /events gives that seat, and hide seat 1's kept cards.
    log = a.client.get(f"/v1/games/{gid}/events?limit=1000", headers=bearer(game["seats"][0]["token"])).get_json()
    assert [e for m in mine for e in m["events"]] == log["events"]
    assert log["redacted"] is True
    hidden = [e for e in log["events"] if e["type"] == "action_applied" and e["payload"]["seat"] == 1
              and e["payload"]["action"]["type"] in SECRET_ACTION_TYPES]
    assert len(hidden) >= 1 and all(set(e["payload"]["action"]) == {"type"} for e in hidden)
    assert all("salt" not in e["payload"] for e in log["events"])
    assert all("events" not in m for m in seen)  # a spectator gets notices only
    final = finish(b.client, game, 60, start=n)
    try:
        mine += ws_messages(seat0, lambda m: m["type"] == "game-over")
        seen += ws_messages(watcher, lambda m: m["type"] == "game-over")
    finally:
        for ws in (seat0, watcher):
            with contextlib.suppress(simple_websocket.ConnectionClosed):
                ws.close()
    time.sleep(0.2)
    assert (seat0.connected, seat0.close_reason, watcher.close_reason) == (False, 1000, 1000)  # told, then closed
    for messages in (mine, seen):
        versions = [m["version"] for m in messages if m["type"] == "version"]
        assert versions == list(range(1, final + 1))  # each once, in order, none missing
        assert messages[-1] == {"type": "game-over", "version": final, "status": "over", "to_move": None}
    # The SSE stream of the same game carries versions and nothing of anyone's hand.
    sse = parse_sse(a.client.get(f"/v1/games/{gid}/stream?version=0&timeout=5").get_data(as_text=True))
    assert all(set(e["data"]) <= {"version", "status", "to_move"} for e in sse)


@pytest.mark.postgres
def test_websocket_errors_come_before_the_upgrade(replicas: tuple[Server, Server]) -> None:
    a, _ = replicas
    game = create_game(a.client)  # type: ignore[arg-type]
    for path, headers, status in [
        ("/v1/games/no-such-game/ws", {}, 404),
        (f"/v1/games/{game['game_id']}/ws", bearer("not-a-token"), 403),
        (f"/v1/games/{game['game_id']}/ws?version=-1", {}, 400),
    ]:
        with pytest.raises(simple_websocket.ConnectionError) as refused:
            ws_connect(a.port, path, headers)
        assert refused.value.status_code == status


def test_hidden_information_never_reaches_a_spectator_or_another_seat_over_sse_or_wait(client: FlaskClient) -> None:
    game = create_game(client)
    gid = game["game_id"]
    finish(client, game, 7)
    for headers in ({}, bearer(game["seats"][1]["token"])):
        text = client.get(f"/v1/games/{gid}/stream?version=0&timeout=1", headers=headers).get_data(as_text=True)
        assert all(set(e["data"]) <= {"version", "status", "to_move"} for e in parse_sse(text))
        assert "salt" not in text and "order" not in text
    assert set(client.get(f"/v1/games/{gid}/wait?version=0").get_json()) == {"game_id", "version", "changed"}


# -- shutdown ------------------------------------------------------------------------------------

@pytest.mark.postgres
def test_sigterm_ends_open_streams_at_once_and_the_server_exits(push_db: str) -> None:
    with gunicorn(push_db, extra_env={"GUNICORN_GRACEFUL_TIMEOUT": "25"}) as server:
        game = create_game(server.client)  # type: ignore[arg-type]
        gid = game["game_id"]
        stream = open_sse(server.port, f"/v1/games/{gid}/stream?version=1&timeout=600")
        assert stream.readline() == b": connected\n"
        ws = ws_connect(server.port, f"/v1/games/{gid}/ws?version=1")
        wait = in_thread(lambda: server.client.get(f"/v1/games/{gid}/wait?version=1&timeout=60").get_json())
        time.sleep(0.5)
        started = time.monotonic()
        server.process.send_signal(signal.SIGTERM)
        events = read_events(stream, lambda e: e["event"] == "shutdown")
        assert events[-1]["event"] == "shutdown"
        assert ws_messages(ws, lambda m: m["type"] == "shutdown")[-1]["type"] == "shutdown"
        assert result(*wait, timeout=20)["changed"] is False
        server.process.wait(20)
        # Well inside the 25 s grace: the streams ended because they were told to, not because they were cut.
        assert time.monotonic() - started < 15


# -- the API suites under the production worker class ------------------------------------------------

# Tests that read the app object (client.application) or need a database of their own (an empty game list, the
# global log from position 1): the shared server cannot give them that, and they test nothing worker-specific.
_NEEDS_A_FRESH_APP = {"test_notifications_need_the_service_key", "test_create_game_errors",
                      "test_a_retry_gets_the_original_201_and_no_second_game",
                      "test_the_same_key_with_another_body_is_409_and_changes_nothing"}


def _client_only_tests() -> list[Any]:
    """Every API test that needs nothing but a client (or a game made through it), to run against gunicorn."""
    tests = []
    for module in (test_api_endpoints, test_api_errors, test_idempotent_creation):
        for name, func in inspect.getmembers(module, inspect.isfunction):
            params = list(inspect.signature(func).parameters)
            usable = params in (["client"], ["client", "game"], ["any_client"]) and not hasattr(func, "pytestmark")
            if name.startswith("test_") and name not in _NEEDS_A_FRESH_APP and usable:
                tests.append(pytest.param(func, params, id=f"{module.__name__.rsplit('.', 1)[-1]}::{name}"))
    return tests


@pytest.fixture(scope="module")
def sqlite_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """The suites were written against the embedded backend (some check it by name): the same database here."""
    with gunicorn(f"sqlite:///{tmp_path_factory.mktemp('gunicorn') / 'api.sqlite3'}") as server:
        yield server


@pytest.mark.parametrize(("test", "params"), _client_only_tests())
def test_api_suite_under_gunicorn_gevent(sqlite_server: Server, test: Any, params: list[str]) -> None:
    http_client: HttpClient = sqlite_server.client
    if params == ["client", "game"]:
        test(http_client, create_game(http_client))  # type: ignore[arg-type]
    else:
        test(http_client)
