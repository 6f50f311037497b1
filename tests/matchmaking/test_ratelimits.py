"""Rate limits and stream caps of the matchmaker, on the real Redis: a player's burst gets 429 with
Retry-After and leaves other players and a portal alone; the player is the one a verified token names (a forged
token naming a victim is counted by address, never as the victim); a portal's burst is its own; one stream too many
for a player is refused before it opens and a closed one gives its slot back; the counts live in the matchmaker's
Redis. The requests come from documentation addresses (loopback, the tests' own, is exempt by default)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient

from torres_matchmaking.app import Services, create_app
from torres_matchmaking.config import Config
from torres_service.principals import DEV_ISSUER, ApiKey, PlayerTokens, Registry, Tenant, key_digest

from .conftest import DEV_TOKENS, REDIS_URL, as_player, player_token

ALICE_ADDR, BOB_ADDR, MALLORY_ADDR = "203.0.113.10", "203.0.113.11", "198.51.100.66"
TICKET = {"player_counts": [2], "edition": "rio_grande", "master": False, "max_wait_seconds": 30}
LIMITS = {"TORRES_RATELIMIT_EXEMPT": "", "TORRES_RATELIMIT_ADDRESS": "100 per 10 seconds",
          "TORRES_RATELIMIT_PLAYER": "4 per 10 seconds", "TORRES_RATELIMIT_TENANT": "3 per 10 seconds",
          "TORRES_MAX_STREAMS_PER_PLAYER": "1"}
ACME_SECRET = "acme-player-token-secret-0123456789abcdef"


@pytest.fixture
def app(config: Config, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Flask]:
    """The matchmaker with two portals besides the single-key default's: ``default`` (the dev issuer) and ``acme``
    and ``globex`` with their own keys."""
    for name, value in LIMITS.items():
        monkeypatch.setenv(name, value)
    tenants = tmp_path / "tenants.json"
    tenants.write_text(json.dumps(Registry({
        "default": Tenant("default", (), DEV_TOKENS),
        "acme": Tenant("acme", (ApiKey("k1", key_digest("acme-key"), frozenset({"matchmaking"})),),
                       PlayerTokens("acme", hs256_secret=ACME_SECRET)),
        "globex": Tenant("globex", (ApiKey("k1", key_digest("globex-key"), frozenset({"matchmaking"})),)),
    }).to_json()))
    config = config.with_(tenants_file=str(tenants))
    services = Services.build(config)
    yield create_app(config, services=services)
    services.stop()


def from_address(app: Flask, address: str) -> FlaskClient:
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    return client


def assert_429(response: Any, code: str, limit_class: str) -> dict[str, Any]:
    assert response.status_code == 429, response.get_data(as_text=True)[:300]
    assert response.mimetype == "application/problem+json"
    body = response.get_json()
    assert body["code"] == code and body["limit_class"] == limit_class
    assert int(response.headers["Retry-After"]) >= 1
    return body


def test_a_players_burst_is_refused_and_other_players_go_on(app: Flask) -> None:
    alice, bob = from_address(app, ALICE_ADDR), from_address(app, BOB_ADDR)
    alice_headers = as_player("alice")
    assert [alice.get("/v1/queues", headers=alice_headers).status_code for _ in range(4)] == [200] * 4
    body = assert_429(alice.get("/v1/queues", headers=alice_headers), "rate_limited", "player")
    assert body["limit"] == 4 and body["window_seconds"] == 10
    # A new token of alice's is still alice; from another address too. Refused, nothing changes: no ticket.
    assert_429(bob.post("/v1/tickets", json=TICKET, headers=as_player("alice")), "rate_limited", "player")
    assert bob.post("/v1/tickets", json=TICKET, headers=as_player("bob")).status_code == 201
    assert alice.get("/v1/queues", headers=as_player("carol")).status_code == 200  # same address, other player


def test_a_forged_token_naming_a_player_never_spends_that_players_budget(app: Flask) -> None:
    mallory = from_address(app, MALLORY_ADDR)
    forged = player_token("alice", PlayerTokens(DEV_ISSUER, hs256_secret="not-the-portals-secret-but-long-enough"))
    for _ in range(8):
        assert mallory.get("/v1/queues", headers={"Authorization": f"Bearer {forged}"}).status_code == 401
    alice = from_address(app, ALICE_ADDR)
    assert [alice.get("/v1/queues", headers=as_player("alice")).status_code for _ in range(4)] == [200] * 4
    # Another portal's player of the same id is another player.
    acme_alice = as_player("alice", PlayerTokens("acme", hs256_secret=ACME_SECRET))
    assert alice.get("/v1/queues", headers=acme_alice).status_code == 200


def test_a_portals_burst_leaves_other_portals_alone(app: Flask) -> None:
    portal = from_address(app, ALICE_ADDR)
    assert [portal.get("/v1/leaderboard", headers={"X-API-Key": "acme-key"}).status_code
            for _ in range(3)] == [200] * 3
    assert_429(portal.get("/v1/leaderboard", headers={"X-API-Key": "acme-key"}), "rate_limited", "tenant")
    assert portal.get("/v1/leaderboard", headers={"X-API-Key": "globex-key"}).status_code == 200
    assert portal.get("/v1/queues", headers=as_player("dave")).status_code == 200


def test_one_stream_too_many_for_a_player_is_refused_and_closing_it_frees_the_slot(app: Flask) -> None:
    alice, bob = from_address(app, ALICE_ADDR), from_address(app, BOB_ADDR)
    ticket = alice.post("/v1/tickets", json=TICKET, headers=as_player("erin")).get_json()
    path = f"/v1/tickets/{ticket['ticket_id']}/stream?timeout=30"
    first = alice.get(path, headers=as_player("erin"), buffered=False)
    assert first.status_code == 200
    second = bob.get(f"/v1/tickets/{ticket['ticket_id']}/wait?timeout=1", headers=as_player("erin"))
    body = assert_429(second, "too_many_streams_for_client", "player")
    assert body["limit"] == 1 and second.headers["Retry-After"] == "5"
    other = bob.post("/v1/tickets", json=TICKET, headers=as_player("frank")).get_json()
    response = bob.get(f"/v1/tickets/{other['ticket_id']}/wait?timeout=0", headers=as_player("frank"))
    assert response.status_code == 200, response.get_json()
    first.close()
    assert alice.get(f"/v1/tickets/{ticket['ticket_id']}/wait?timeout=0", headers=as_player("erin")).status_code == 200


@pytest.mark.redis
def test_the_counts_are_kept_in_the_matchmakers_redis(app: Flask) -> None:
    alice = from_address(app, ALICE_ADDR)
    assert alice.get("/v1/queues", headers=as_player("gina")).status_code == 200
    raw = redis.Redis.from_url(REDIS_URL)
    try:
        assert raw.keys("*torres-matchmaking*"), "no count in Redis"
    finally:
        raw.close()


def test_loopback_and_probes_are_not_limited(config: Config, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in LIMITS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("TORRES_RATELIMIT_EXEMPT")  # the default: loopback exempt
    services = Services.build(config)
    try:
        app = create_app(config, services=services)
        local = app.test_client()  # 127.0.0.1
        assert {local.get("/v1/queues", headers=as_player("hank")).status_code for _ in range(8)} == {200}
        remote = from_address(app, ALICE_ADDR)
        assert {remote.get("/healthz").status_code for _ in range(8)} == {200}
        assert {remote.get("/metrics").status_code for _ in range(8)} == {200}
        assert [remote.get("/v1/queues", headers=as_player("hank")).status_code for _ in range(5)][-1] == 429
    finally:
        services.stop()
