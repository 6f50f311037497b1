"""The matchmaker as an attacker sees it, on the real Redis server and a tenants file written by the real keys
CLI (``torres_service.keys``, run in this process).

A ticket is its player's: another player's token, another tenant's, a forged, expired, wrong-audience,
wrong-issuer or unsigned one gets nothing — 404 "no such ticket" for a valid token of somebody else, 401 for a
token that does not verify — and every attempt leaves every Redis key exactly as it was (compared by ``DUMP``).
The seat token only ever reaches the ticket's own player. Stream tickets are single-use, short-lived and bound
to their ticket. Tenants' players are matched only among themselves (or in the shared pool, among its tenants),
by real ``serve`` and ``matcher`` processes.
"""

from __future__ import annotations

import base64
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

import httpx
import jwt
import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient
from serving import free_port

from torres_matchmaking.app import Services, create_app
from torres_matchmaking.config import Config
from torres_matchmaking.game_client import GameServiceClient
from torres_matchmaking.matcher import Matcher
from torres_matchmaking.store import Keys
from torres_service import keys
from torres_service.principals import PlayerTokens, issue_player_token

from .conftest import REDIS_URL, GameServer, answers, set_rating

TICKET = {"player_counts": [2], "max_wait_seconds": None}


def keys_cli(path: Path, *args: str) -> dict[str, Any]:
    """One keys CLI command on the tenants file, in this process (a process each made the module's set-up a
    dozen interpreter starts): what it prints."""
    return keys.run(keys.parser().parse_args(["--file", str(path), *args]))


class Portal:
    """A tenant as the tests play it: its name, how it signs player tokens, its matchmaking key."""

    def __init__(self, made: dict[str, Any], key: str) -> None:
        self.name = made["tenant"]
        self.tokens = PlayerTokens(made["issuer"], made["audience"], hs256_secret=made["hs256_secret"])
        self.key = key


@pytest.fixture(scope="module")
def tenants(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """portal-a and portal-b with their own pools, portal-c and portal-d in the shared pool, portal-j signing with
    its own keys (JWKS); each with a matchmaking key, portal-a also with a games-only key; one internal key."""
    path = tmp_path_factory.mktemp("tenants") / "tenants.json"
    out: dict[str, Any] = {}
    for name in ("portal-a", "portal-b", "portal-c", "portal-d"):
        made = keys_cli(path, "add-tenant", name, *(["--shared-pool"] if name in ("portal-c", "portal-d") else []))
        out[name] = Portal(made, keys_cli(path, "add-key", name, "--scopes", "matchmaking")["key"])
    keys_cli(path, "add-tenant", "portal-j", "--jwks-url", "http://127.0.0.1:9/jwks.json")
    out["portal-j key"] = keys_cli(path, "add-key", "portal-j", "--scopes", "matchmaking")["key"]
    out["games-only key"] = keys_cli(path, "add-key", "portal-a", "--scopes", "games")["key"]
    out["internal key"] = keys_cli(path, "add-key", "matcher", "--internal", "--scopes", "games")["key"]
    return path, out


@pytest.fixture(scope="module")
def tenant_games(tmp_path_factory: pytest.TempPathFactory,
                 tenants: tuple[Path, dict[str, Any]]) -> Iterator[GameServer]:
    """The game service on the same tenants file: the matcher creates each game for its players' tenant with its
    internal key (``t["internal key"]``), as in production."""
    server = GameServer(tmp_path_factory.mktemp("tenant-games") / "games.sqlite3", tenants_file=str(tenants[0]))
    yield server.start()
    server.stop()


@pytest.fixture
def app(config: Config, tenants: tuple[Path, dict[str, Any]]) -> Iterator[Flask]:
    config = config.with_(tenants_file=str(tenants[0]), dev_issuer=True, stream_ticket_ttl=60.0)
    services = Services.build(config)
    yield create_app(config, services=services)
    services.stop()


def bearer(portal: Portal, player: str, **kwargs: Any) -> dict[str, str]:
    """A player's request headers: the token their portal signs for them."""
    return {"Authorization": f"Bearer {issue_player_token(portal.tokens, player, **kwargs)}"}


def state(raw: redis.Redis) -> dict[bytes, bytes | None]:
    """Every key of the database and its serialized value: any change to a ticket, queue, rating or stream ticket
    shows."""
    return {key: raw.dump(key) for key in sorted(raw.keys("*"))}


@pytest.fixture
def raw(redis_client: redis.Redis) -> Iterator[redis.Redis]:
    client = redis.Redis.from_url(REDIS_URL)
    yield client
    client.close()


def assert_problem(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, (status, code, response.get_data(as_text=True)[:300])
    assert response.mimetype == "application/problem+json"
    body = response.get_json()
    assert body["code"] == code, body
    if status == 401:
        assert response.headers["WWW-Authenticate"].startswith(("Bearer", "ApiKey")), response.headers
    return body


def attempts(ticket_id: str) -> list[tuple[str, str]]:
    """Every way to reach a ticket: read, long-poll, stream, ask for a stream ticket, cancel."""
    base = f"/v1/tickets/{ticket_id}"
    return [("GET", base), ("GET", f"{base}/wait?timeout=0.05"), ("GET", f"{base}/stream?timeout=0.05"),
            ("POST", f"{base}/stream-tickets"), ("DELETE", base)]


class Queued(NamedTuple):
    client: FlaskClient
    a: Portal
    b: Portal
    ticket: dict[str, Any]


@pytest.fixture
def alices(app: Flask, tenants: tuple[Path, dict[str, Any]]) -> Queued:
    """A test client, portal-a and portal-b, and the ticket portal-a's alice queued with that client."""
    t = tenants[1]
    a, b = t["portal-a"], t["portal-b"]
    client = app.test_client()
    return Queued(client, a, b, client.post("/v1/tickets", json=TICKET, headers=bearer(a, "alice")).get_json())


# -- somebody else's ticket ---------------------------------------------------------------------------------------

def test_another_players_or_tenants_token_gets_404_and_changes_nothing(alices: Queued, raw: redis.Redis) -> None:
    client, a, b, ticket = alices
    unknown = "0" + ticket["ticket_id"][1:-1] + ("0" if ticket["ticket_id"][-1] != "0" else "1")
    intruders = {"another player of the tenant": bearer(a, "mallory"),
                 "alice of another tenant": bearer(b, "alice"),
                 "another tenant's key and a player token": {**bearer(b, "alice"), "X-API-Key": b.key}}
    for who, headers in intruders.items():
        for method, url in attempts(ticket["ticket_id"]):
            before = state(raw)
            response = client.open(url, method=method, headers=headers)
            body = assert_problem(response, 404, "ticket_not_found")
            assert "seat_token" not in response.get_data(as_text=True) and state(raw) == before, (who, method, url)
            # the very answer an id nobody holds gets: nothing says the ticket exists
            other = client.open(url.replace(ticket["ticket_id"], unknown), method=method, headers=headers)
            assert other.status_code == 404
            assert other.get_json()["detail"].replace(unknown, "<id>") == body["detail"].replace(
                ticket["ticket_id"], "<id>"), (who, method, url)
    mine = client.get(f"/v1/tickets/{ticket['ticket_id']}", headers=bearer(a, "alice"))
    assert mine.status_code == 200 and mine.get_json()["status"] == "queued"  # still queued, still alice's


def test_the_seat_token_reaches_only_the_tickets_player(
        app: Flask, tenants: tuple[Path, dict[str, Any]], config: Config, raw: redis.Redis,
        tenant_games: GameServer) -> None:
    _, t = tenants
    a = t["portal-a"]
    client = app.test_client()
    ids = {p: client.post("/v1/tickets", json=TICKET, headers=bearer(a, p)).get_json()["ticket_id"]
           for p in ("ann", "ben")}
    store = app.extensions["torres_matchmaking"].store
    matcher = Matcher(store, config, GameServiceClient(tenant_games.url, t["internal key"]))
    try:
        assert matcher.tick().created == 1
    finally:
        matcher.close()
    seen = {}
    for player, ticket_id in ids.items():
        own = client.get(f"/v1/tickets/{ticket_id}", headers=bearer(a, player)).get_json()
        assert own["status"] == "matched" and own["seat_token"]
        seen[player] = own
        stream = client.get(f"/v1/tickets/{ticket_id}/stream?timeout=1", headers=bearer(a, player))
        assert own["seat_token"] in stream.get_data(as_text=True)
    assert seen["ann"]["game_id"] == seen["ben"]["game_id"] and seen["ann"]["seat_token"] != seen["ben"]["seat_token"]
    tokens = [s["seat_token"] for s in seen.values()]
    for player, ticket_id in ids.items():
        other = "ben" if player == "ann" else "ann"
        for who in (bearer(a, other), bearer(t["portal-b"], player), {}):
            for method, url in attempts(ticket_id)[:4]:
                text = client.open(url, method=method, headers=who).get_data(as_text=True)
                assert not any(token in text for token in tokens), (player, method, url)
    for url in ("/v1/queues", "/v1/leaderboard", "/v1/players/ann/rating"):
        text = client.get(url, headers={"X-API-Key": a.key}).get_data(as_text=True)
        assert not any(token in text for token in tokens)


# -- tokens that do not verify ----------------------------------------------------------------------------------

def forgeries(a: Portal, b: Portal) -> dict[str, str]:
    """Player tokens an attacker might try as alice of portal-a, by what is wrong with each."""
    now = int(time.time())
    good = {"iss": a.tokens.issuer, "aud": a.tokens.audience, "sub": "alice", "iat": now, "exp": now + 600}
    secret = a.tokens.hs256_secret

    def sign(claims: dict[str, Any], key: str | None = None, algorithm: str = "HS256") -> str:
        return jwt.encode(claims, key or secret, algorithm=algorithm)

    def b64(data: bytes) -> str:
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

    genuine = sign(good)
    head, _, signature = genuine.split(".")
    return {
        "signed with another tenant's secret": sign(good, b.tokens.hs256_secret),
        "another tenant's own token naming portal-a's issuer": sign({**good, "iss": a.tokens.issuer},
                                                                    b.tokens.hs256_secret),
        "a guessed secret": sign(good, "g" * 48),
        "expired": sign({**good, "iat": now - 900, "exp": now - 120}),
        "wrong audience": sign({**good, "aud": "someone-else"}),
        "wrong issuer": sign({**good, "iss": "https://evil.example"}),
        "no expiry": sign({k: v for k, v in good.items() if k != "exp"}),
        "lives a month": sign({**good, "exp": now + 30 * 86400}),
        "alg none": f"{b64(json.dumps({'alg': 'none', 'typ': 'JWT'}).encode())}.{b64(json.dumps(good).encode())}.",
        "HS512 with the secret": sign(good, algorithm="HS512"),
        "subject swapped after signing": f"{head}.{b64(json.dumps({**good, 'sub': 'mallory'}).encode())}.{signature}",
        "a subject that is no player id": sign({**good, "sub": "alice\nadmin"}),
        "not a JWT": "not-a-jwt",
    }


def test_forged_expired_and_foreign_tokens_are_401_and_create_nothing(alices: Queued, raw: redis.Redis) -> None:
    client, a, b, ticket = alices
    for why, token in forgeries(a, b).items():
        headers = {"Authorization": f"Bearer {token}"}
        before = state(raw)
        assert_problem(client.post("/v1/tickets", json=TICKET, headers=headers), 401, "invalid_player_token")
        for method, url in attempts(ticket["ticket_id"]):
            response = client.open(url, method=method, headers=headers)
            assert response.status_code == 401, (why, method, url, response.status_code)
            assert response.headers["WWW-Authenticate"].startswith("Bearer")
        for url in ("/v1/queues", "/v1/leaderboard", "/v1/players/alice/rating"):
            assert client.get(url, headers=headers).status_code == 401, (why, url)
        assert state(raw) == before, why


@pytest.mark.parametrize(("authorization", "code"), [
    (None, "unauthenticated"), ("Basic YWxpY2U6cHc=", "unsupported_authorization"),
    ("Bearer", "unsupported_authorization"), ("Token abc", "unsupported_authorization"),
    ("Bearer a b", "unsupported_authorization"), ("bearer not-a-jwt", "invalid_player_token"),
])
def test_without_a_bearer_player_token_every_ticket_call_is_401(
        app: Flask, tenants: tuple[Path, dict[str, Any]], raw: redis.Redis, authorization: str | None,
        code: str) -> None:
    _, t = tenants
    client = app.test_client()
    ticket = client.post("/v1/tickets", json=TICKET, headers=bearer(t["portal-a"], "alice")).get_json()
    headers = {} if authorization is None else {"Authorization": authorization}
    before = state(raw)
    assert_problem(client.post("/v1/tickets", json=TICKET, headers=headers), 401, code)
    for method, url in attempts(ticket["ticket_id"]):
        assert_problem(client.open(url, method=method, headers=headers), 401, code)
    assert state(raw) == before


def test_the_body_never_names_the_player(app: Flask, tenants: tuple[Path, dict[str, Any]],
                                         raw: redis.Redis) -> None:
    _, t = tenants
    client = app.test_client()
    before = state(raw)
    for claimed in ("mallory", "alice"):  # another player, or even the token's own
        body = assert_problem(client.post("/v1/tickets", json={**TICKET, "player_id": claimed},
                                          headers=bearer(t["portal-a"], "alice")), 400, "validation_failed")
        assert body["errors"] == {"player_id": ["Unknown field."]}
    assert state(raw) == before


# -- stream tickets -----------------------------------------------------------------------------------------------

def test_a_key_that_does_not_verify_is_refused_beside_a_stream_ticket_or_a_player_token(
        app: Flask, tenants: tuple[Path, dict[str, Any]], raw: redis.Redis) -> None:
    """A valid ticket or token does not make an ``X-API-Key`` beside it count for nothing: a key nobody holds is
    401, an internal key or one without ``matchmaking`` 403, another tenant's key 403; nothing changes, and the
    ticket refused with it still opens the stream for its holder."""
    _, t = tenants
    a = t["portal-a"]
    client = app.test_client()
    alice = client.post("/v1/tickets", json=TICKET, headers=bearer(a, "alice")).get_json()
    base = f"/v1/tickets/{alice['ticket_id']}"
    refusals = [({"X-API-Key": "trs_" + "x" * 43}, 401, "invalid_credentials"),
                ({"X-API-Key": t["internal key"]}, 403, "forbidden"),
                ({"X-API-Key": t["games-only key"]}, 403, "insufficient_scope"),
                ({"X-API-Key": t["portal-b"].key}, 403, "forbidden")]
    for headers, status, code in refusals:
        secret = client.post(f"{base}/stream-tickets", headers=bearer(a, "alice")).get_json()["stream_ticket"]
        before = state(raw)
        assert_problem(client.get(f"{base}/stream?timeout=0.05&stream_ticket={secret}", headers=headers),
                       status, code)
        assert_problem(client.get(base, headers={**headers, **bearer(a, "alice")}), status, code)
        assert_problem(client.get(f"{base}/stream?timeout=0.05", headers={**headers, **bearer(a, "alice")}),
                       status, code)
        if code != "forbidden" or headers["X-API-Key"] == t["internal key"]:
            assert state(raw) == before  # refused before the ticket was taken
            assert client.get(f"{base}/stream?timeout=0.05&stream_ticket={secret}").status_code == 200
    own = client.get(base, headers={"X-API-Key": a.key, **bearer(a, "alice")})
    assert own.status_code == 200  # the player's own portal's key beside the token is no refusal


def test_a_stream_ticket_opens_its_stream_once(app: Flask, tenants: tuple[Path, dict[str, Any]],
                                               raw: redis.Redis) -> None:
    _, t = tenants
    a = t["portal-a"]
    client = app.test_client()
    alice = client.post("/v1/tickets", json=TICKET, headers=bearer(a, "alice")).get_json()
    bob = client.post("/v1/tickets", json=TICKET, headers=bearer(a, "bob")).get_json()
    issued = client.post(f"/v1/tickets/{alice['ticket_id']}/stream-tickets", headers=bearer(a, "alice"))
    assert issued.status_code == 201
    secret = issued.get_json()["stream_ticket"]
    assert issued.get_json()["expires_in"] == 60.0 and secret in issued.get_json()["stream_url"]
    assert not any(secret.encode() in key or secret.encode() in (value or b"") for key, value in state(raw).items())
    url = f"/v1/tickets/{alice['ticket_id']}/stream?timeout=0.05&stream_ticket={secret}"
    first = client.get(url)
    assert first.status_code == 200 and '"player_id": "alice"' in first.get_data(as_text=True)
    before = state(raw)
    assert_problem(client.get(url), 401, "invalid_stream_ticket")  # replayed
    assert state(raw) == before
    # bound to its ticket: bob's stream ticket does not open alice's stream (and is spent by the try)
    bobs = client.post(f"/v1/tickets/{bob['ticket_id']}/stream-tickets", headers=bearer(a, "bob")).get_json()
    assert_problem(client.get(f"/v1/tickets/{alice['ticket_id']}/stream?stream_ticket={bobs['stream_ticket']}"),
                   401, "invalid_stream_ticket")
    assert_problem(client.get(f"/v1/tickets/{bob['ticket_id']}/stream?stream_ticket={bobs['stream_ticket']}"),
                   401, "invalid_stream_ticket")
    # nobody else gets one for alice's ticket; a made-up one opens nothing; not both credentials at once
    assert_problem(client.post(f"/v1/tickets/{alice['ticket_id']}/stream-tickets", headers=bearer(a, "bob")),
                   404, "ticket_not_found")
    assert_problem(client.get(f"/v1/tickets/{alice['ticket_id']}/stream?stream_ticket={'A' * 43}"), 401,
                   "invalid_stream_ticket")
    fresh = client.post(f"/v1/tickets/{alice['ticket_id']}/stream-tickets", headers=bearer(a, "alice")).get_json()
    assert_problem(client.get(f"/v1/tickets/{alice['ticket_id']}/stream?stream_ticket={fresh['stream_ticket']}",
                              headers=bearer(a, "alice")), 400, "validation_failed")
    assert_problem(client.get(f"/v1/tickets/{alice['ticket_id']}/stream"), 401, "unauthenticated")


def test_a_stream_ticket_expires_and_two_racing_uses_open_one_stream(
        config: Config, tenants: tuple[Path, dict[str, Any]]) -> None:
    path, t = tenants
    a = t["portal-a"]
    config = config.with_(tenants_file=str(path), stream_ticket_ttl=0.3)
    services = Services.build(config)
    client = create_app(config, services=services).test_client()
    try:
        ticket = client.post("/v1/tickets", json=TICKET, headers=bearer(a, "alice")).get_json()
        base = f"/v1/tickets/{ticket['ticket_id']}"
        late = client.post(f"{base}/stream-tickets", headers=bearer(a, "alice")).get_json()["stream_ticket"]
        time.sleep(0.5)
        assert_problem(client.get(f"{base}/stream?stream_ticket={late}"), 401, "invalid_stream_ticket")
        def use(secret: str, start: threading.Barrier, statuses: list[int]) -> None:
            start.wait()
            response = client.get(f"{base}/stream?timeout=0.05&stream_ticket={secret}")
            response.get_data()  # to the end: the stream's subscription is given back
            statuses.append(response.status_code)

        for _ in range(5):
            secret = client.post(f"{base}/stream-tickets", headers=bearer(a, "alice")).get_json()["stream_ticket"]
            statuses: list[int] = []
            start = threading.Barrier(4)
            threads = [threading.Thread(target=use, args=(secret, start, statuses)) for _ in range(4)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(10)
            assert sorted(statuses) == [200, 401, 401, 401]  # GETDEL: exactly one use wins
    finally:
        services.stop()


# -- ratings and leaderboards -------------------------------------------------------------------------------------

def test_ratings_and_leaderboards_are_per_tenant(app: Flask, tenants: tuple[Path, dict[str, Any]],
                                                 redis_client: redis.Redis, raw: redis.Redis) -> None:
    _, t = tenants
    a, b = t["portal-a"], t["portal-b"]
    set_rating(redis_client, "alice", 31.0, tenant="portal-a")
    set_rating(redis_client, "alice", 12.0, tenant="portal-b")
    redis_client.zadd(Keys().leaderboard("portal-a"), {"alice": 22.0})
    redis_client.zadd(Keys().leaderboard("portal-b"), {"alice": 3.0, "zed": 1.0})
    client = app.test_client()
    assert client.get("/v1/players/alice/rating", headers=bearer(a, "alice")).get_json()["mu"] == 31.0
    assert client.get("/v1/players/alice/rating", headers=bearer(b, "alice")).get_json()["mu"] == 12.0
    assert client.get("/v1/players/zed/rating", headers={"X-API-Key": b.key}).get_json()["player_id"] == "zed"
    board_a = client.get("/v1/leaderboard", headers={"X-API-Key": a.key}).get_json()
    board_b = client.get("/v1/leaderboard", headers=bearer(b, "zed")).get_json()
    assert [e["player_id"] for e in board_a["entries"]] == ["alice"] and board_a["entries"][0]["mu"] == 31.0
    assert [e["player_id"] for e in board_b["entries"]] == ["alice", "zed"] and board_b["total"] == 2
    # a ticket's rating is its tenant's player's
    assert client.post("/v1/tickets", json=TICKET, headers=bearer(b, "alice")).get_json()["rating"] == 12.0
    before = state(raw)
    refusals = [
        (client.get("/v1/players/bob/rating", headers=bearer(a, "alice")), 403, "forbidden"),
        (client.get("/v1/players/alice/rating", headers={**bearer(a, "alice"), "X-API-Key": b.key}), 403,
         "forbidden"),
        (client.get("/v1/leaderboard", headers={"X-API-Key": t["internal key"]}), 403, "forbidden"),
        (client.get("/v1/leaderboard", headers={"X-API-Key": t["games-only key"]}), 403, "insufficient_scope"),
        (client.get("/v1/leaderboard", headers={"X-API-Key": a.key + "x"}), 401, "invalid_credentials"),
        (client.get("/v1/leaderboard"), 401, "unauthenticated"),
        (client.get("/v1/queues"), 401, "unauthenticated"),
    ]
    for response, status, code in refusals:
        assert_problem(response, status, code)
    assert state(raw) == before


# -- the dev issuer -------------------------------------------------------------------------------------------------

def test_the_dev_issuer_signs_only_for_its_keys_tenant(app: Flask, config: Config,
                                                       tenants: tuple[Path, dict[str, Any]]) -> None:
    path, t = tenants
    a = t["portal-a"]
    client = app.test_client()
    issued = client.post("/v1/dev/player-tokens", json={"player_id": "alice"}, headers={"X-API-Key": a.key})
    assert issued.status_code == 201
    doc = issued.get_json()
    assert (doc["tenant"], doc["player_id"], doc["token_type"]) == ("portal-a", "alice", "Bearer")
    claims = jwt.decode(doc["token"], a.tokens.hs256_secret, algorithms=["HS256"], audience="torres")
    assert claims["iss"] == a.tokens.issuer and claims["exp"] - claims["iat"] == 900
    assert doc["expires_at"] == claims["exp"]
    made = client.post("/v1/tickets", json=TICKET, headers={"Authorization": f"Bearer {doc['token']}"})
    assert made.status_code == 201 and made.get_json()["player_id"] == "alice"
    assert_problem(client.post("/v1/dev/player-tokens", json={"player_id": "alice"}), 401, "unauthenticated")
    assert_problem(client.post("/v1/dev/player-tokens", json={"player_id": "alice"},
                               headers={"X-API-Key": t["games-only key"]}), 403, "insufficient_scope")
    assert_problem(client.post("/v1/dev/player-tokens", json={"player_id": "alice"},
                               headers={"X-API-Key": t["internal key"]}), 403, "forbidden")
    assert_problem(client.post("/v1/dev/player-tokens", json={"player_id": "alice"},
                               headers={"X-API-Key": t["portal-j key"]}), 409, "dev_issuer_unavailable")
    assert_problem(client.post("/v1/dev/player-tokens", json={"player_id": "alice"},
                               headers=bearer(a, "alice")), 401, "unauthenticated")  # a player is no portal
    off = config.with_(tenants_file=str(path), dev_issuer=False)
    services = Services.build(off)
    try:
        closed = create_app(off, services=services).test_client()
        assert_problem(closed.post("/v1/dev/player-tokens", json={"player_id": "alice"},
                                   headers={"X-API-Key": a.key}), 404, "not_found")
        assert "/v1/dev/player-tokens" not in closed.get("/openapi.json").get_json()["paths"]
    finally:
        services.stop()


# -- tenants' pools, with real processes ------------------------------------------------------------------------

def _serve(port: int, env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "torres_matchmaking", "serve", "--port", str(port)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)


def _until(condition: Callable[[], bool], seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def test_tenants_players_meet_only_in_their_own_or_the_shared_pool(
        redis_client: redis.Redis, tenant_games: GameServer, tenants: tuple[Path, dict[str, Any]]) -> None:
    """A ``serve`` process reading the tenants file and a ``matcher`` process: alice of portal-a and bob of
    portal-b wait side by side in one edition and are never matched; a second portal-a player is matched with
    alice; portal-c and portal-d share the pool, so their players are matched with each other — but two players
    of the same id from two shared tenants never sit in one game."""
    path, t = tenants
    a, b, c, d = (t[n] for n in ("portal-a", "portal-b", "portal-c", "portal-d"))
    port = free_port()
    env = {**os.environ, "REDIS_URL": REDIS_URL, "GAME_SERVICE_URL": tenant_games.url,
           "GAME_SERVICE_API_KEY": t["internal key"], "TORRES_TENANTS_FILE": str(path), "LOG_LEVEL": "ERROR",
           "MM_TICK_SECONDS": "0.05", "MM_LEASE_SECONDS": "1"}
    processes = [_serve(port, env), subprocess.Popen([sys.executable, "-m", "torres_matchmaking", "matcher",
                                                      "--no-ratings"], env=env, start_new_session=True)]
    base = f"http://127.0.0.1:{port}"
    earlier = {g["game_id"] for g in tenant_games.all_games()}
    try:
        _until(lambda: answers(f"{base}/healthz"), 30, "the serve process")

        def queue(portal: Portal, player: str) -> str:
            response = httpx.post(f"{base}/v1/tickets", json=TICKET, headers=bearer(portal, player))
            assert response.status_code == 201, response.text
            return str(response.json()["ticket_id"])

        def read(portal: Portal, player: str, ticket_id: str) -> dict[str, Any]:
            return dict(httpx.get(f"{base}/v1/tickets/{ticket_id}", headers=bearer(portal, player)).json())

        alice, bob = queue(a, "alice"), queue(b, "bob")
        sam_c, sam_d = queue(c, "sam"), queue(d, "sam")
        time.sleep(2.0)  # dozens of matcher ticks, windows wide open after a few seconds of waiting
        assert read(a, "alice", alice)["status"] == read(b, "bob", bob)["status"] == "queued"
        assert read(c, "sam", sam_c)["status"] == read(d, "sam", sam_d)["status"] == "queued"
        assert httpx.get(f"{base}/v1/queues", headers={"X-API-Key": a.key}).json()["queues"] == {
            "rio_grande:base:2": 1}  # portal-a's own pool: alice alone
        assert httpx.get(f"{base}/v1/queues", headers={"X-API-Key": c.key}).json()["queues"] == {
            "rio_grande:base:2": 2}  # the shared pool: both sams

        carol = queue(a, "carol")
        tess = queue(d, "tess")
        _until(lambda: read(a, "carol", carol)["status"] == "matched", 20, "carol's match")
        _until(lambda: read(d, "tess", tess)["status"] == "matched", 20, "tess's match")
        assert read(a, "alice", alice)["game_id"] == read(a, "carol", carol)["game_id"]
        assert read(b, "bob", bob)["status"] == "queued"  # nobody of portal-b: bob still waits
        tess_game = read(d, "tess", tess)["game_id"]
        sams = [read(c, "sam", sam_c), read(d, "sam", sam_d)]
        assert sum(s.get("game_id") == tess_game for s in sams) == 1  # one of the two sams, not both
        for game in (g for g in tenant_games.all_games() if g["game_id"] not in earlier):
            humans = {s["player_id"] for s in game["seats"] if s["kind"] == "human"}
            assert "bob" not in humans and not ({"alice", "carol"} & humans and humans - {"alice", "carol"})
    finally:
        for process in processes:
            os.killpg(process.pid, signal.SIGTERM)
        for process in processes:
            process.wait(30)


def test_the_claim_script_refuses_a_group_across_scopes(app: Flask, tenants: tuple[Path, dict[str, Any]]) -> None:
    """Whatever a matcher formed (a bug, an old version), one claim cannot put two tenants' own pools into one
    game: the script compares the tickets' scopes, atomically with the claim."""
    _, t = tenants
    client = app.test_client()
    ids = [client.post("/v1/tickets", json=TICKET, headers=bearer(t[n], "x")).get_json()["ticket_id"]
           for n in ("portal-a", "portal-b")]
    store = app.extensions["torres_matchmaking"].store
    pool = ("rio_grande", False)
    keys = [*store.keys.pool_keys(pool), store.keys.group(pool, "g"), *(store.keys.ticket(i) for i in ids)]
    result = store.scripts.run("claim", keys, repr(time.time()), "g", repr(time.time() + 30), "[]", 600, *ids)
    assert result == [0, ids[1], "scope"]
    assert all(store.client.hget(store.keys.ticket(i), "status") == "queued" for i in ids)
