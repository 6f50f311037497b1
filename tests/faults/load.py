"""The fault suite's clients: what a portal and its players do, recording every answer a fault could shape.

* :class:`Client`: HTTP to either game replica, each request retried (same body, same ``command_id``) on 503 or a
  broken connection, never on anything else; every attempt is a :class:`Call` (refused or served).
* :func:`play_game`: a two-seat game played over HTTP, a few actions then a resignation, each acknowledged action
  recorded with the version it was answered with; an AI seat is left to the Celery workers.
* :func:`watch_sse` / :func:`watch_ws`: a watcher on the game's SSE stream or WebSocket from version 0, reconnecting
  with the last version it had whenever the stream breaks, closes (``shutdown``, ``timeout``) or is refused.
* :func:`matchmaking`: two players queue tickets, wait to be matched, and play the game they were put in.
* :class:`Receiver`: the portal's webhook endpoint, on loopback, answering 200 and keeping every delivery id.

Every wait is bounded: a request by :data:`RETRY_FOR`, a stream read by its timeout, a thread by the stop event.
"""

from __future__ import annotations

import contextlib
import json
import random
import threading
import time
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import simple_websocket

from torres_service.principals import DEV_ISSUER, PlayerTokens, issue_player_token

#: How long a client keeps retrying one request before the run fails (a failover takes ~10-15 s).
RETRY_FOR = 90.0
MOVES_PER_GAME = 8
#: An SSE or WebSocket read waits this long for a byte (keep-alives come every TORRES_STREAM_HEARTBEAT, 15 s).
STREAM_READ = 40.0


@dataclass
class Call:
    started: float
    ended: float
    ok: bool  # answered, not 503 and not a broken connection
    status: int = 0  # 0: no answer (a broken or refused connection)
    what: str = ""  # the server, method and last path segment: where refusals and slow answers came from
    long_poll: float = 0.0  # seconds the request asked the server to wait (a long-poll): not part of its bound

    @property
    def took(self) -> float:
        """How long the server took to answer, less the wait the request asked for."""
        return self.ended - self.started - self.long_poll


@dataclass
class Watch:
    """What one watcher saw of a game: the versions, in the order they came, and whether it was told it ended."""

    name: str
    game_id: str
    seen: list[int] = field(default_factory=list)
    ended: bool = False
    reconnects: int = 0


@dataclass
class Record:
    """What the clients saw: every call, acknowledged action, game, watcher, seated player and checkpoint."""

    calls: list[Call] = field(default_factory=list)
    delays: list[tuple[float, float]] = field(default_factory=list)  # refused at least once: first try, answer
    acked: dict[str, dict[str, int]] = field(default_factory=dict)  # game -> command id -> version answered
    games: set[str] = field(default_factory=set)
    watches: list[Watch] = field(default_factory=list)
    games_of_player: dict[str, set[str]] = field(default_factory=dict)  # matched players only
    tickets_matched: int = 0
    checkpoints: dict[int, str] = field(default_factory=dict)  # tree size -> signed note
    errors: list[BaseException] = field(default_factory=list)  # what a watcher's thread raised
    surprises: list[str] = field(default_factory=list)  # answers no correct server gives (a game or action lost)
    lock: threading.Lock = field(default_factory=threading.Lock)


class Client:
    """HTTP to either replica, each request retried (same body, same command id) on 503 or a broken connection."""

    def __init__(self, urls: list[str], record: Record, headers: dict[str, str] | None = None) -> None:
        self.clients = [httpx.Client(base_url=u, timeout=30, headers=headers or {}) for u in urls]
        self.urls = urls
        self.record = record
        self.rng = random.Random()

    def request(self, method: str, path: str, *, retry_5xx: bool = False, long_poll: float = 0.0,
                **kw: Any) -> httpx.Response:
        """``retry_5xx``: any 5xx is retried too (the matchmaker's answers while its Redis fails over);
        ``long_poll``: the seconds the request asks the server to wait."""
        first = time.monotonic()
        deadline = first + RETRY_FOR
        while True:
            started = time.monotonic()
            http = self.rng.choice(self.clients)
            try:
                response: httpx.Response | None = http.request(method, path, **kw)
                assert response is not None
                ok = response.status_code != 503 and response.status_code < 500
            except httpx.TransportError:
                response, ok = None, False
            with self.record.lock:
                self.record.calls.append(Call(started, time.monotonic(), ok,
                                              response.status_code if response is not None else 0,
                                              f"{http.base_url} {method} {path.split('/')[-1]}",
                                              long_poll))
            if ok and response is not None:
                if started > first:
                    with self.record.lock:
                        self.record.delays.append((first, time.monotonic()))
                return response
            assert response is None or response.status_code == 503 or retry_5xx, (
                method, path, response.status_code, response.text[:300])
            assert time.monotonic() < deadline, f"{method} {path}: refused for {RETRY_FOR} s"
            time.sleep(float(response.headers.get("Retry-After", "1")) / 4 if response is not None else 0.25)


def play_game(client: Client, game_id: str, tokens: dict[int, str], stop: threading.Event,
              watch: bool = True) -> None:
    """A few actions by whichever human seat is to move (the AI seat's turns are waited for), then a resignation
    (so the transparency log integrates the game); an SSE and a WebSocket watcher follow it meanwhile."""
    record = client.record
    with record.lock:
        record.games.add(game_id)
        record.acked.setdefault(game_id, {})
    watchers = []
    if watch:
        api_key = client.clients[0].headers.get("X-API-Key", "")
        for target in (watch_sse, watch_ws):
            thread = threading.Thread(target=_reporting, args=(target, client.urls, game_id, api_key, record, stop),
                                      daemon=True)
            thread.start()
            watchers.append(thread)
    for _ in range(MOVES_PER_GAME):
        if stop.is_set():
            break
        summary = client.request("GET", f"/v1/games/{game_id}")
        if not _as_expected(record, game_id, summary, 200):
            break
        if summary.json()["status"] != "active":
            break
        seat = summary.json()["to_move"]
        if seat not in tokens:  # the AI's turn: wait for it
            client.request("GET", f"/v1/games/{game_id}/wait",
                           params={"version": summary.json()["version"], "timeout": 5}, long_poll=5)
            continue
        auth = {"Authorization": f"Bearer {tokens[seat]}"}
        legal = client.request("GET", f"/v1/games/{game_id}/legal-actions", headers=auth)
        if not _as_expected(record, game_id, legal, 200):
            break
        if not legal.json()["actions"]:
            continue
        command_id = uuid.uuid4().hex
        answer = client.request("POST", f"/v1/games/{game_id}/actions", headers=auth, json={
            "seat": seat, "action": legal.json()["actions"][0], "expected_version": legal.json()["version"],
            "command_id": command_id})
        if not _as_expected(record, game_id, answer, 201):
            break
        with record.lock:
            record.acked[game_id][command_id] = answer.json()["version"]
    seat = next(iter(tokens))
    client.request("POST", f"/v1/games/{game_id}/resign", json={"seat": seat},
                   headers={"Authorization": f"Bearer {tokens[seat]}"})
    for thread in watchers:
        thread.join(STREAM_READ + 5)


def _as_expected(record: Record, game_id: str, response: httpx.Response, status: int) -> bool:
    """Whether ``response`` has the status a correct server gives here; if not, it is written down for the checker
    (a game whose creation was acknowledged and then lost answers 404, an action after a lost one 409) and the
    caller abandons the game."""
    if response.status_code == status:
        return True
    with record.lock:
        record.surprises.append(f"{game_id}: {response.request.method} {response.request.url.path} answered "
                                f"{response.status_code}, not {status}: {response.text[:200]}")
    return False


def _reporting(target: Any, *args: Any) -> None:
    try:
        target(*args)
    except BaseException as exc:  # the test's thread reports it
        record: Record = args[3]
        with record.lock:
            record.errors.append(exc)


def play(client: Client, api_key: str, stop: threading.Event, *, against_ai: bool) -> None:
    """Games created by the portal (its API key), one after another, until ``stop``."""
    while not stop.is_set():
        seats = [{"kind": "human", "player_id": f"p-{uuid.uuid4().hex[:8]}"},
                 {"kind": "ai", "level": "easy"} if against_ai else
                 {"kind": "human", "player_id": f"q-{uuid.uuid4().hex[:8]}"}]
        created = client.request("POST", "/v1/games", json={"seats": seats}, headers={"X-API-Key": api_key})
        assert created.status_code == 201, created.text
        game = created.json()
        play_game(client, game["game_id"], {i: s["token"] for i, s in enumerate(game["seats"]) if s.get("token")},
                  stop)


def matchmaking(mm: Client, games: Client, player_token_secret: str, stop: threading.Event) -> None:
    """Pairs of players through the matchmaker: two tickets, polled until both are matched (into the same game,
    each to a seat of its own), then that game played."""
    portal = PlayerTokens(DEV_ISSUER, hs256_secret=player_token_secret)
    record = games.record
    while not stop.is_set():
        players = [f"m-{uuid.uuid4().hex[:8]}" for _ in range(2)]
        auth = {p: {"Authorization": f"Bearer {issue_player_token(portal, p)}"} for p in players}
        tickets = {}
        for player in players:
            answer = mm.request("POST", "/v1/tickets", retry_5xx=True, headers=auth[player],
                                json={"player_counts": [2], "max_wait_seconds": 1.0})
            assert answer.status_code == 201, answer.text
            tickets[player] = answer.json()["ticket_id"]
        matched: dict[str, dict[str, Any]] = {}
        deadline = time.monotonic() + RETRY_FOR
        while len(matched) < len(players):
            assert time.monotonic() < deadline, f"tickets {tickets} not matched within {RETRY_FOR} s"
            for player in players:
                if player not in matched:
                    body = mm.request("GET", f"/v1/tickets/{tickets[player]}", retry_5xx=True,
                                      headers=auth[player]).json()
                    assert body["status"] in ("queued", "matched"), body
                    if body["status"] == "matched":
                        matched[player] = body
            time.sleep(0.3)
        with record.lock:
            record.tickets_matched += len(matched)
            for player, body in matched.items():
                record.games_of_player.setdefault(player, set()).add(body["game_id"])
        game_ids = {body["game_id"] for body in matched.values()}
        if len(game_ids) == 1:  # else the checker reports the pair split (the two-games check sees the rest)
            play_game(games, game_ids.pop(), {b["seat"]: b["seat_token"] for b in matched.values()}, stop,
                      watch=False)


def _new_watch(record: Record, kind: str, game_id: str) -> Watch:
    watch = Watch(f"{kind} {game_id}", game_id)
    with record.lock:
        record.watches.append(watch)
    return watch


def watch_sse(urls: list[str], game_id: str, api_key: str, record: Record, stop: threading.Event) -> None:
    watch = _new_watch(record, "sse", game_id)
    rng = random.Random()
    with httpx.Client(timeout=httpx.Timeout(10, read=STREAM_READ), headers={"X-API-Key": api_key}) as http:
        while not stop.is_set() and not watch.ended:
            version = watch.seen[-1] if watch.seen else 0
            try:
                with http.stream("GET", f"{rng.choice(urls)}/v1/games/{game_id}/stream",
                                 params={"version": version, "timeout": 60}) as response:
                    if response.status_code != 200:
                        assert response.status_code == 503, (response.status_code, response.read()[:300])
                        time.sleep(0.25)
                        continue
                    event = ""
                    for line in response.iter_lines():
                        if line.startswith("event: "):
                            event = line[len("event: "):]
                        elif line.startswith("data: ") and event == "version":
                            watch.seen.append(json.loads(line[len("data: "):])["version"])
                        elif line.startswith("data: ") and event == "game-over":
                            watch.ended = True
                            return
                        if stop.is_set():
                            return
            except httpx.TransportError:
                time.sleep(0.25)
            watch.reconnects += 1


def watch_ws(urls: list[str], game_id: str, api_key: str, record: Record, stop: threading.Event) -> None:
    watch = _new_watch(record, "ws", game_id)
    rng = random.Random()
    while not stop.is_set() and not watch.ended:
        version = watch.seen[-1] if watch.seen else 0
        url = rng.choice(urls).replace("http://", "ws://")
        try:
            ws = simple_websocket.Client.connect(f"{url}/v1/games/{game_id}/ws?version={version}",
                                                 headers={"X-API-Key": api_key})
        except (simple_websocket.ConnectionError, OSError):
            time.sleep(0.25)
            watch.reconnects += 1
            continue
        try:
            while not stop.is_set():
                raw = ws.receive(timeout=STREAM_READ)
                if raw is None:
                    break  # nothing for a whole read: reconnect
                message = json.loads(raw)
                if message["type"] == "version":
                    watch.seen.append(message["version"])
                elif message["type"] == "game-over":
                    watch.ended = True
                    return
                elif message["type"] == "shutdown":
                    break
        except (simple_websocket.ConnectionClosed, OSError):
            pass
        finally:
            with contextlib.suppress(simple_websocket.ConnectionClosed, OSError):
                ws.close()
        watch.reconnects += 1
        time.sleep(0.1)


class Receiver:
    """A portal's webhook endpoint on loopback: answers 200 and keeps the delivery id of every post."""

    def __init__(self) -> None:
        self.delivered: set[str] = set()
        self.posts = 0
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length", "0")))
                receiver.delivered.add(self.headers["X-Torres-Delivery"])
                receiver.posts += 1
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *_: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/hooks"

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
