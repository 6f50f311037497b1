"""Rate limits and stream caps of the game service, through gunicorn with the production configuration:
a burst above a small limit gets 429 problem+json with Retry-After and changes nothing, while another seat,
another address and another tenant go on; the count starts again after the window; two workers share the count in
the real Redis (and would not in memory); a Redis that is gone never makes a 5xx; one stream too many for a seat or
an address is refused before it opens (SSE and WebSocket alike) and closing one gives its slot back.

The servers trust one proxy (``TORRES_TRUSTED_PROXIES=1``), so each test speaks from its own addresses through
``X-Forwarded-For`` -- werkzeug's ProxyFix in the real server -- and loopback is not exempt here."""

from __future__ import annotations

import contextlib
import http.client
import itertools
import json
import os
import random
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
import simple_websocket
from polling import wait_until

from .conftest import ADMIN, bearer, create_game
from .servers import HttpClient, HttpResponse, Server, gunicorn
from .tenant_helpers import cli

pytestmark = pytest.mark.timeout(180)

REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/13")
# The heartbeat is also the WebSocket ping interval, and a socket whose pong has not come by the next ping is
# dropped (simple-websocket): 1 s, so that a test client starved of CPU keeps its socket (and its stream slot).
LIMITED = {"TORRES_RATELIMIT_EXEMPT": "", "TORRES_TRUSTED_PROXIES": "1", "TORRES_STREAM_HEARTBEAT": "1",
           "TORRES_RATELIMIT_ADDRESS": "12 per 3 seconds", "TORRES_RATELIMIT_PLAYER": "5 per 3 seconds",
           "TORRES_RATELIMIT_TENANT": "6 per 3 seconds",
           "TORRES_MAX_STREAMS_PER_PLAYER": "2", "TORRES_MAX_STREAMS_PER_ADDRESS": "3"}
_addresses = (f"198.18.{random.randrange(256)}.{n}" for n in itertools.count(1))  # RFC 2544's benchmark range


class From:
    """An HTTP client speaking from one address (as the trusted proxy tells it in ``X-Forwarded-For``)."""

    def __init__(self, server: Server, address: str | None = None) -> None:
        self.server = server
        self.address = address or next(_addresses)
        self.http = HttpClient(server.port)

    def headers(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        return {"X-Forwarded-For": self.address, **(extra or {})}

    def get(self, path: str, headers: dict[str, str] | None = None) -> HttpResponse:
        return self.http.get(path, headers=self.headers(headers))

    def post(self, path: str, body: Any, headers: dict[str, str] | None = None) -> HttpResponse:
        return self.http.post(path, json=body, headers=self.headers(headers))


def assert_rate_limited(response: HttpResponse, limit_class: str) -> dict[str, Any]:
    assert response.status_code == 429, response.get_data(as_text=True)[:300]
    assert response.mimetype == "application/problem+json"
    body = response.get_json()
    assert body["code"] == "rate_limited" and body["limit_class"] == limit_class
    retry_after = int(response.headers["Retry-After"])
    assert 1 <= retry_after <= 3 and body["retry_after"] == retry_after
    return body


def at_window_start(seconds: int = 3) -> None:
    """Sleep to just after a fixed window's start, so that a burst falls in one window."""
    time.sleep(seconds - time.time() % seconds + 0.05)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with gunicorn(f"sqlite:///{tmp_path_factory.mktemp('limits') / 'limits.sqlite3'}", extra_env=LIMITED) as s:
        yield s


class _Portal:
    """``create_game``'s client, from an address of its own (the creation counts against it, nothing else)."""

    def __init__(self, server: Server) -> None:
        self.source = From(server)

    def post(self, path: str, json: Any = None, headers: dict[str, str] | None = None) -> HttpResponse:
        return self.source.post(path, json, headers)


def new_game(server: Server) -> dict[str, Any]:
    return create_game(_Portal(server))  # type: ignore[arg-type]


def event_count(server: Server, game_id: str) -> int:
    response = From(server).get(f"/v1/games/{game_id}/events?limit=1000", ADMIN)
    assert response.status_code == 200
    return len(response.get_json()["events"])


# -- request rates ------------------------------------------------------------------------------------------------

def test_a_seats_burst_is_refused_and_changes_nothing_while_the_other_seat_goes_on(server: Server) -> None:
    game = new_game(server)
    gid, seat0, seat1 = game["game_id"], bearer(game["seats"][0]["token"]), bearer(game["seats"][1]["token"])
    browser = From(server)
    at_window_start()
    legal = [browser.get(f"/v1/games/{gid}/legal-actions", seat0) for _ in range(5)]
    assert [r.status_code for r in legal] == [200] * 5
    before = event_count(server, gid)
    first = legal[0].get_json()
    action = {"seat": 0, "action": first["actions"][0], "expected_version": first["version"], "command_id": "r-1"}
    refused = browser.post(f"/v1/games/{gid}/actions", action, seat0)
    body = assert_rate_limited(refused, "player")
    assert body["limit"] == 5 and body["window_seconds"] == 3
    assert event_count(server, gid) == before  # the refused action never reached the game
    # The seat's count follows the token, not the address; the other seat and the address go on.
    assert_rate_limited(From(server).get(f"/v1/games/{gid}/view", seat0), "player")
    assert From(server, browser.address).get(f"/v1/games/{gid}/legal-actions", seat1).status_code == 200
    assert browser.get(f"/v1/games/{gid}").status_code == 200
    # After the window the same action goes through.
    time.sleep(int(refused.headers["Retry-After"]) + 0.05)
    accepted = browser.post(f"/v1/games/{gid}/actions", action, seat0)
    assert accepted.status_code == 201, accepted.get_json()
    assert event_count(server, gid) > before


def test_an_address_burst_is_refused_and_other_addresses_go_on(server: Server) -> None:
    gid = new_game(server)["game_id"]
    flood, neighbour = From(server), From(server)
    at_window_start()
    assert [flood.get(f"/v1/games/{gid}").status_code for _ in range(12)] == [200] * 12
    assert_rate_limited(flood.get(f"/v1/games/{gid}"), "address")
    assert_rate_limited(flood.get("/v1/no-such-route"), "address")  # unknown paths count as well
    assert neighbour.get(f"/v1/games/{gid}").status_code == 200
    # The probes and the scrape are never refused, and the scrape counts the refusals by class.
    assert flood.get("/healthz").status_code == 200 and flood.get("/readyz").status_code == 200
    metrics = flood.get("/metrics")
    assert metrics.status_code == 200
    assert 'torres_http_rate_limited_total{kind="requests",limit_class="address",service="game"}' in \
        metrics.get_data(as_text=True)


def test_a_tenants_burst_leaves_other_tenants_alone(tmp_path: Path) -> None:
    """Two portals from one address (their servers behind one NAT): one's burst is its own."""
    tenants = tmp_path / "tenants.json"
    keys: dict[str, str] = {}
    for name in ("acme", "globex"):
        cli(tenants, "add-tenant", name)
        keys[name] = cli(tenants, "add-key", name, "--scopes", "games,admin")["key"]
    env = {**LIMITED, "TORRES_TENANTS_FILE": str(tenants)}
    with gunicorn(f"sqlite:///{tmp_path / 'tenants.sqlite3'}", extra_env=env) as server:
        portal = From(server)
        at_window_start()
        acme = [portal.get("/v1/games", {"X-API-Key": keys["acme"]}).status_code for _ in range(6)]
        assert 429 not in acme
        assert_rate_limited(portal.get("/v1/games", {"X-API-Key": keys["acme"]}), "tenant")
        assert portal.get("/v1/games", {"X-API-Key": keys["globex"]}).status_code != 429


# -- where the count is kept ------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def redis_url() -> str:
    client = redis.Redis.from_url(REDIS_URL, socket_timeout=3)
    try:
        client.ping()
    except redis.RedisError as exc:
        pytest.skip(f"Redis not reachable at {REDIS_URL}: {exc}")
    finally:
        client.close()
    return REDIS_URL


def successes(server: Server, path: str, n: int) -> int:
    """``n`` requests from one new address, each on its own connection (the kernel spreads connections over the
    workers' sockets): how many were not refused (never a 5xx)."""
    source = From(server)
    statuses = [source.get(path).status_code for _ in range(n)]
    assert all(status < 500 for status in statuses), statuses
    return sum(status != 429 for status in statuses)


@pytest.mark.postgres
@pytest.mark.redis
def test_two_workers_share_the_count_in_redis_and_not_in_memory(
        redis_url: str, throwaway_database: Callable[[str], contextlib.AbstractContextManager[str]]) -> None:
    with throwaway_database("torres_limits_test") as url:
        env = {**LIMITED, "TORRES_RATELIMIT_ADDRESS": "10 per 10 seconds"}
        with gunicorn(url, workers=2, extra_env={**env, "TORRES_RATELIMIT_STORAGE_URI": redis_url}) as shared:
            assert successes(shared, "/v1/games", 30) == 10
            # The game service's default storage is its Redis (the AI broker's) when it has one.
        with gunicorn(url, workers=2, extra_env={**env, "TORRES_RATELIMIT_STORAGE_URI": "",
                                                  "CELERY_BROKER_URL": redis_url}) as shared:
            assert successes(shared, "/v1/games", 30) == 10
        with gunicorn(url, workers=2, extra_env={**env, "TORRES_RATELIMIT_STORAGE_URI": "memory://"}) as apart:
            # each worker counts its own: up to 10 each (all 30 on one worker is a 2**-29 chance)
            assert 10 < successes(apart, "/v1/games", 30) <= 20


def test_a_redis_that_is_gone_never_makes_a_5xx(tmp_path: Path) -> None:
    env = {**LIMITED, "TORRES_RATELIMIT_ADDRESS": "5 per 10 seconds",
           "TORRES_RATELIMIT_STORAGE_URI": "redis://127.0.0.1:1/0"}  # nothing listens on port 1
    with gunicorn(f"sqlite:///{tmp_path / 'gone.sqlite3'}", extra_env=env) as server:
        source = From(server)
        statuses = [source.get("/v1/games/no-such-game").status_code for _ in range(8)]
        # answered, and limited per process while the storage is gone (flask-limiter's in-memory fallback)
        assert statuses == [404] * 5 + [429] * 3
        assert From(server).get("/v1/games/no-such-game").status_code == 404


# -- stream caps ------------------------------------------------------------------------------------------------------

def open_stream(server: Server, path: str, headers: dict[str, str]) -> http.client.HTTPResponse:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    conn.request("GET", path, headers=headers)
    return conn.getresponse()


def ws_connect(server: Server, path: str, headers: dict[str, str]) -> simple_websocket.Client:
    return simple_websocket.Client.connect(f"ws://127.0.0.1:{server.port}{path}", headers=headers)


def test_one_stream_too_many_for_a_seat_is_refused_and_closing_one_frees_its_slot(server: Server) -> None:
    game = new_game(server)
    gid, seat0, seat1 = game["game_id"], bearer(game["seats"][0]["token"]), bearer(game["seats"][1]["token"])
    tab = From(server)
    path = f"/v1/games/{gid}/stream?version=0&timeout=60"
    first = open_stream(server, path, tab.headers(seat0))
    ws = ws_connect(server, f"/v1/games/{gid}/ws?version=0", tab.headers(seat0))
    assert first.status == 200 and json.loads(ws.receive(timeout=10))["type"] == "version"
    third = open_stream(server, path, From(server).headers(seat0))  # a third, from anywhere: refused
    assert third.status == 429 and third.getheader("Content-Type") == "application/problem+json"
    assert third.getheader("Retry-After") == "5"
    problem = json.loads(third.read())
    assert problem["code"] == "too_many_streams_for_client" and problem["limit_class"] == "player"
    assert problem["limit"] == 2
    with pytest.raises(simple_websocket.ConnectionError) as refused:  # refused before the upgrade, too
        ws_connect(server, f"/v1/games/{gid}/ws?version=0", From(server).headers(seat0))
    assert refused.value.status_code == 429
    other = open_stream(server, path, tab.headers(seat1))
    assert other.status == 200  # another seat, same address
    ws.close()  # the client leaves: the server ends the socket, the slot comes back

    def reopened() -> bool:
        attempt = open_stream(server, path, From(server).headers(seat0))
        if attempt.status == 200:
            attempt.close()
            return True
        return False

    wait_until(reopened, 15, "a stream slot freed")
    for response in (first, other):
        response.close()


def test_anonymous_streams_are_capped_per_address(server: Server) -> None:
    gid = new_game(server)["game_id"]
    path = f"/v1/games/{gid}/stream?version=0&timeout=60"
    crowd = From(server)
    streams = [open_stream(server, path, crowd.headers()) for _ in range(3)]
    assert [s.status for s in streams] == [200] * 3
    refused = open_stream(server, path, crowd.headers())
    assert refused.status == 429 and json.loads(refused.read())["limit_class"] == "address"
    waiting = crowd.get(f"/v1/games/{gid}/wait?version=0&timeout=1")
    assert waiting.status_code == 429  # a long-poll holds a slot like a stream
    assert From(server).get(f"/v1/games/{gid}/wait?version=0&timeout=0").status_code == 200
    streams[0].close()  # a disconnect: noticed at the next heartbeat (1 s here)
    wait_until(lambda: crowd.get(f"/v1/games/{gid}/wait?version=0&timeout=0").status_code == 200, 15,
               "the crowd's waits served again")
    for s in streams[1:]:
        s.close()
