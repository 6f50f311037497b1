"""Fixtures: a real Redis database (flushed per test) and the REAL game service over HTTP.

The game service runs in a werkzeug server thread on an ephemeral port with an embedded SQLite
database, so the matchmaker talks to it exactly as in production: HTTP, service key, JSON.

Players call the matchmaker with a player token: :func:`as_player` signs one the way a portal does
(the single-key default's dev issuer and secret, :data:`DEV_TOKENS`), and :class:`Players` is a test client
whose every call names the player making it (``player="alice"``).
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
from flask.testing import FlaskClient
from local_redis import LocalRedis
from serving import free_port
from verbs import Verbs
from werkzeug.serving import BaseWSGIServer, make_server

from torres_game.app import create_app as create_game_app
from torres_game.config import Config as GameConfig
from torres_matchmaking.config import Config
from torres_matchmaking.store import Keys, Redis
from torres_service.principals import DEFAULT_TENANT, DEV_ISSUER, PlayerTokens, issue_player_token

REDIS_URL = os.environ.get("TEST_MM_REDIS_URL", "redis://127.0.0.1:6379/14")
API_KEY = "mm-test-service-key"
ADMIN_KEY = "mm-test-admin-key"
#: The single-key default's player-token secret in these tests: tenant "default" signs with it (dev issuer).
PLAYER_SECRET = "mm-test-player-token-secret-0123456789abcdef"
DEV_TOKENS = PlayerTokens(DEV_ISSUER, hs256_secret=PLAYER_SECRET)
MIGRATIONS = Path(__file__).resolve().parents[2] / "infra" / "migrations"

pytestmark = pytest.mark.redis
logging.getLogger("werkzeug").setLevel(logging.WARNING)  # one access-log line per request is noise here


class FakeClock:
    """A clock the test moves by hand, shared by the ticket service, the matcher and the Lua scripts."""

    def __init__(self, start: float = 1_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds



class GameServer:
    """The real game service app in a server thread; can be started late (to test it being down)."""

    def __init__(self, db_path: Path, port: int | None = None, tenants_file: str = "") -> None:
        self.tenants_file = tenants_file  # the tenants file the matchmaker reads too; "": single key
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.db_path = db_path
        self._server: BaseWSGIServer | None = None
        self._app: Any = None

    def start(self) -> GameServer:
        config = GameConfig(database_url=f"sqlite:///{self.db_path}", api_key=API_KEY, admin_key=ADMIN_KEY,
                            ai_driver="none", migrations_dir=MIGRATIONS, log_level="WARNING", json_logs=True,
                            tenants_file=self.tenants_file)
        self._app = create_game_app(config)
        self._server = make_server("127.0.0.1", self.port, self._app, threaded=True)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._app.extensions["torres_game"].close()
            self._server = None

    def all_games(self) -> list[dict[str, Any]]:
        """Every game, whichever tenant's (the admin key), page by page (``next_cursor``)."""
        games: list[dict[str, Any]] = []
        params: dict[str, Any] = {"limit": 500}
        with httpx.Client(base_url=self.url, headers={"X-Admin-Key": ADMIN_KEY}) as http:
            while True:
                response = http.get("/v1/games", params=params)
                assert response.status_code == 200, response.text
                page = response.json()
                games += page["games"]
                if not page.get("next_cursor"):
                    return games
                params = {"limit": 500, "cursor": page["next_cursor"]}


@pytest.fixture
def redis_client() -> Iterator[redis.Redis]:
    client = redis.Redis.from_url(REDIS_URL, decode_responses=True)
    try:
        client.ping()
    except redis.ConnectionError as exc:  # pragma: no cover - depends on the machine
        pytest.skip(f"Redis not reachable at {REDIS_URL}: {exc}")
    client.flushdb()
    yield client
    client.flushdb()
    client.close()


@pytest.fixture(scope="session")
def game_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GameServer]:
    server = GameServer(tmp_path_factory.mktemp("games") / "games.sqlite3").start()
    yield server
    server.stop()


@pytest.fixture
def config(redis_client: redis.Redis, game_server: GameServer) -> Config:
    return Config(redis_url=REDIS_URL, game_service_url=game_server.url, game_service_api_key=API_KEY,
                  log_level="WARNING", window_base=3.0, window_growth=0.5, window_max=25.0,
                  retry_delay=1.0, tick_seconds=0.05, api_key=API_KEY, player_token_secret=PLAYER_SECRET)


@pytest.fixture
def store(config: Config) -> Redis:
    return Redis.open(config)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


def set_rating(client: redis.Redis, player_id: str, mu: float, sigma: float = 3.0,
               tenant: str = DEFAULT_TENANT) -> None:
    """Give a player a rating as if they had played (the consumer is the only writer in production)."""
    client.hset(Keys().rating(tenant, player_id), mapping={"mu": mu, "sigma": sigma, "games": 10})


# -- players and portals calling the API -------------------------------------------------------------------------

def player_token(player_id: str, tokens: PlayerTokens = DEV_TOKENS, **kwargs: Any) -> str:
    """A player token for ``player_id`` as the portal signing with ``tokens`` issues it."""
    return issue_player_token(tokens, player_id, **kwargs)


def as_player(player_id: str, tokens: PlayerTokens = DEV_TOKENS) -> dict[str, str]:
    """The headers of a request ``player_id`` makes: their portal's token, nothing else."""
    return {"Authorization": f"Bearer {player_token(player_id, tokens)}"}


class Players(Verbs[Any]):
    """A Flask test client whose every call says who makes it: ``player="alice"`` (that player's token, signed by
    ``tokens``), ``key=`` (a portal's X-API-Key), or neither (no credentials at all)."""

    def __init__(self, client: FlaskClient, tokens: PlayerTokens = DEV_TOKENS) -> None:
        self.client = client
        self.tokens = tokens
        self.application = client.application

    def open(self, path: str, method: str = "GET", *, player: str | None = None, key: str | None = None,
             headers: dict[str, str] | None = None, **kwargs: Any) -> Any:
        sent = dict(headers or {})
        if player is not None:
            sent |= as_player(player, self.tokens)
        if key is not None:
            sent["X-API-Key"] = key
        return self.client.open(path, method=method, headers=sent, **kwargs)


def answers(url: str) -> bool:
    """``url`` answers 200 within 2 s (a served process is up)."""
    try:
        return httpx.get(url, timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def game_summary(server: GameServer, game_id: str) -> dict[str, Any]:
    response = httpx.get(f"{server.url}/v1/games/{game_id}", headers={"X-Admin-Key": ADMIN_KEY})
    assert response.status_code == 200, response.text
    return response.json()




class FaultyProxy:
    """A slow, hanging or forgetful front for the real game service, to put faults between a matcher and it.

    ``hold_requests`` blocks each request before it reaches the game service; ``hold_answers`` forwards it
    (the game is committed) and blocks the answer; ``delay`` sleeps before answering. ``release()`` lets
    every held call go on (a request whose caller has died is still forwarded: a late creation). Every
    ``POST /v1/games`` Idempotency-Key and every abandon is recorded."""

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream
        self.hold_requests = threading.Event()
        self.hold_answers = threading.Event()
        self.delay = 0.0
        self.gate = threading.Event()
        self.arrived = threading.Event()  # a creation reached the proxy
        self.committed = threading.Event()  # a creation was committed by the game service
        self.creation_keys: list[str] = []
        self.abandons: list[tuple[str, dict[str, Any]]] = []
        self._lock = threading.Lock()
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self._server = make_server("127.0.0.1", self.port, self._app, threaded=True)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def release(self) -> None:
        self.hold_requests.clear()
        self.hold_answers.clear()
        self.gate.set()

    def stop(self) -> None:
        self.release()
        self._server.shutdown()
        self._server.server_close()

    def _app(self, environ: dict[str, Any], start_response: Any) -> list[bytes]:
        method, path = environ["REQUEST_METHOD"], environ["PATH_INFO"]
        body = environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
        headers = {k[5:].replace("_", "-"): v for k, v in environ.items() if k.startswith("HTTP_")}
        if environ.get("CONTENT_TYPE"):
            headers["Content-Type"] = environ["CONTENT_TYPE"]
        creating = method == "POST" and path == "/v1/games"
        if creating:
            with self._lock:
                self.creation_keys.append(headers.get("IDEMPOTENCY-KEY", ""))
            self.arrived.set()
            if self.hold_requests.is_set():
                self.gate.wait(120)
        if method == "POST" and path.endswith("/abandon"):
            with self._lock:
                self.abandons.append((path.split("/")[3], json.loads(body or b"{}")))
        query = environ.get("QUERY_STRING")
        response = httpx.request(method, f"{self.upstream}{path}{'?' + query if query else ''}", content=body,
                                 headers={k: v for k, v in headers.items() if k.lower() != "host"}, timeout=60)
        if creating and response.status_code < 300:
            self.committed.set()
            if self.hold_answers.is_set():
                self.gate.wait(120)
            time.sleep(self.delay)
        start_response(f"{response.status_code} X", [("Content-Type", response.headers.get("content-type", "")),
                                                     ("Content-Length", str(len(response.content)))])
        return [response.content]


@pytest.fixture
def proxy(game_server: GameServer) -> Iterator[FaultyProxy]:
    p = FaultyProxy(game_server.url)
    yield p
    p.stop()


@pytest.fixture(scope="session")
def redis_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalRedis]:
    """A Redis Cluster of 3 masters on free loopback ports, for the whole session."""
    if shutil.which("redis-server") is None or shutil.which("redis-cli") is None:  # pragma: no cover
        pytest.skip("Redis Cluster not reachable: redis-server/redis-cli are not installed "
                    "(apt-get install redis-server)")
    cluster = LocalRedis(tmp_path_factory.mktemp("redis-cluster"), masters=3)
    yield cluster
    cluster.stop()


@pytest.fixture(params=["single", "cluster"])
def backend(request: pytest.FixtureRequest, redis_client: redis.Redis) -> Iterator[tuple[str, bool, Any]]:
    """(redis_url, cluster?, client): the tests' Redis database, or the 3-master cluster (flushed)."""
    if request.param == "single":
        yield REDIS_URL, False, redis_client
        return
    cluster: LocalRedis = request.getfixturevalue("redis_cluster")
    cluster.flush()
    client = cluster.client()
    yield cluster.url, True, client
    client.close()
    cluster.flush()
