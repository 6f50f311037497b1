"""The HTTP API on real Redis: each bad input is a clear 4xx problem; one live ticket per player; expiry. Every
call is made by a player with their portal's token (``player=``; conftest.Players)."""

from __future__ import annotations

from typing import Any

import pytest

from torres_matchmaking.app import Services, create_app
from torres_matchmaking.config import Config
from torres_matchmaking.errors import LiveTicketExists, TicketNotFound
from torres_matchmaking.tickets import TicketService

from .conftest import API_KEY, PLAYER_SECRET, FakeClock, GameServer, Players

GOOD = {"player_counts": [2, 3], "edition": "rio_grande", "master": False, "max_wait_seconds": 30}


@pytest.fixture
def services(config: Config, clock: FakeClock) -> Services:
    services = Services.build(config)
    services.tickets.clock = clock
    return services


@pytest.fixture
def client(config: Config, services: Services) -> Players:
    return Players(create_app(config, services=services).test_client())


def _problem(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.get_json()
    assert response.mimetype == "application/problem+json"
    body = response.get_json()
    assert body["code"] == code and body["status"] == status and body["type"].endswith(code)
    assert body["detail"]
    return body


@pytest.mark.parametrize(("change", "field"), [
    ({"edition": "monopoly"}, "edition"),
    ({"player_counts": [1]}, "player_counts"),
    ({"player_counts": [5]}, "player_counts"),
    ({"player_counts": [2, 5]}, "player_counts"),
    ({"player_counts": []}, "player_counts"),
    ({"player_counts": [2, 2]}, "player_counts"),
    ({"player_counts": ["2"]}, "player_counts"),
    ({"player_id": "alice"}, "player_id"),  # the token names the player, never the body
    ({"max_wait_seconds": -1}, "max_wait_seconds"),
    ({"master": "maybe"}, "master"),
    ({"colour": "red"}, "colour"),
])
def test_bad_ticket_bodies_are_400_with_the_field(client: Players, change: dict[str, Any], field: str) -> None:
    body = _problem(client.post("/v1/tickets", json={**GOOD, **change}, player="alice"), 400, "validation_failed")
    assert field in body["errors"], body


def test_missing_fields_and_bad_json_are_400(client: Players) -> None:
    body = _problem(client.post("/v1/tickets", json={}, player="alice"), 400, "validation_failed")
    assert set(body["errors"]) == {"player_counts"}
    _problem(client.post("/v1/tickets", data="{not json", content_type="application/json", player="alice"), 400,
             "validation_failed")
    body = _problem(client.post("/v1/tickets", json={**GOOD, "max_wait_seconds": 100, "ttl_seconds": 10},
                                player="alice"), 400, "validation_failed")
    assert "max_wait_seconds" in body["errors"]


@pytest.mark.parametrize("path", ["/v1/tickets/123", "/v1/tickets/" + "G" * 32, "/v1/tickets/../etc"])
def test_malformed_ticket_ids_are_400(client: Players, path: str) -> None:
    response = client.get(path, player="alice")
    assert response.status_code in (400, 404)
    if response.status_code == 400:
        _problem(response, 400, "malformed_id")
    _problem(client.delete("/v1/tickets/not-a-ticket", player="alice"), 400, "malformed_id")


def test_unknown_ticket_is_404_and_bad_player_id_is_400(client: Players) -> None:
    _problem(client.get("/v1/tickets/" + "0" * 32, player="alice"), 404, "ticket_not_found")
    _problem(client.delete("/v1/tickets/" + "0" * 32, player="alice"), 404, "ticket_not_found")
    _problem(client.get("/v1/players/bad%20id/rating", key=API_KEY), 400, "malformed_id")
    _problem(client.get("/v1/leaderboard?limit=0", key=API_KEY), 400, "validation_failed")
    _problem(client.put("/v1/tickets", player="alice"), 405, "method_not_allowed")


def test_an_unknown_query_parameter_on_the_leaderboard_is_a_400(client: Players) -> None:
    """A list refuses what it does not know (a misspelt ``limit`` ignored would answer the default page)."""
    body = _problem(client.get("/v1/leaderboard?limt=5", key=API_KEY), 400, "validation_failed")
    assert "limt" in body["errors"], body
    assert client.get("/v1/leaderboard?limit=5&offset=0", key=API_KEY).status_code == 200


def test_create_read_cancel(client: Players) -> None:
    created = client.post("/v1/tickets", json=GOOD, player="alice")
    assert created.status_code == 201, created.get_json()
    ticket = created.get_json()
    assert ticket["status"] == "queued" and ticket["player_counts"] == [2, 3] and ticket["rating"] == 25.0
    assert client.get(f"/v1/tickets/{ticket['ticket_id']}", player="alice").get_json()["status"] == "queued"
    queues = client.get("/v1/queues", key=API_KEY).get_json()["queues"]
    assert queues == {"rio_grande:base:2": 1, "rio_grande:base:3": 1}
    cancelled = client.delete(f"/v1/tickets/{ticket['ticket_id']}", player="alice")
    assert cancelled.status_code == 200 and cancelled.get_json()["status"] == "cancelled"
    assert client.get("/v1/queues", key=API_KEY).get_json()["queues"] == {}
    body = _problem(client.delete(f"/v1/tickets/{ticket['ticket_id']}", player="alice"), 409,
                    "ticket_not_cancellable")
    assert body["ticket_status"] == "cancelled"


def test_one_live_ticket_per_player(client: Players) -> None:
    first = client.post("/v1/tickets", json=GOOD, player="alice").get_json()
    body = _problem(client.post("/v1/tickets", json={**GOOD, "player_counts": [4], "edition": "yucata"},
                                player="alice"), 409, "live_ticket_exists")
    assert body["ticket_id"] == first["ticket_id"]
    assert client.post("/v1/tickets", json=GOOD, player="bob").status_code == 201  # others may queue
    client.delete(f"/v1/tickets/{first['ticket_id']}", player="alice")
    second = client.post("/v1/tickets", json=GOOD, player="alice")  # after a cancel the player may queue again
    assert second.status_code == 201 and second.get_json()["ticket_id"] != first["ticket_id"]


def test_expiry(client: Players, services: Services, clock: FakeClock) -> None:
    ticket = client.post("/v1/tickets", json={**GOOD, "max_wait_seconds": None, "ttl_seconds": 10},
                         player="alice").get_json()
    assert ticket["max_wait_seconds"] is None and ticket["expires_at"] == clock.now + 10
    clock.advance(9.9)
    assert client.get(f"/v1/tickets/{ticket['ticket_id']}", player="alice").get_json()["status"] == "queued"
    _problem(client.post("/v1/tickets", json=GOOD, player="alice"), 409, "live_ticket_exists")
    clock.advance(0.2)
    assert services.tickets.expire_due(("rio_grande", False)) == 1  # the sweep the matcher runs every tick
    expired = client.get(f"/v1/tickets/{ticket['ticket_id']}", player="alice").get_json()
    assert expired["status"] == "expired" and expired["ended_at"] == clock.now
    assert client.get("/v1/queues", key=API_KEY).get_json()["queues"] == {}
    _problem(client.delete(f"/v1/tickets/{ticket['ticket_id']}", player="alice"), 409, "ticket_not_cancellable")
    assert client.post("/v1/tickets", json=GOOD, player="alice").status_code == 201  # an expired ticket is not live


def test_expiry_without_the_sweep(client: Players, clock: FakeClock) -> None:
    """A ticket past its deadline is expired even if no matcher ran: reads and new tickets see it."""
    ticket = client.post("/v1/tickets", json={**GOOD, "ttl_seconds": 5, "max_wait_seconds": 1},
                         player="alice").get_json()
    clock.advance(6)
    assert client.post("/v1/tickets", json=GOOD, player="alice").status_code == 201
    assert client.get(f"/v1/tickets/{ticket['ticket_id']}", player="alice").get_json()["status"] == "expired"


def test_openapi_and_health(client: Players) -> None:
    spec = client.get("/openapi.json").get_json()
    assert {"/v1/tickets", "/v1/tickets/{ticket_id}", "/v1/leaderboard", "/v1/players/{player_id}/rating"} \
        <= set(spec["paths"])
    assert client.get("/healthz").get_json() == {"status": "ok"}
    assert client.get("/readyz").get_json() == {"status": "ready", "redis": "external", "game_service": "ready"}


def test_embedded_mode_runs_the_same_scripts() -> None:
    """No REDIS_URL: the same Lua scripts on in-process fakeredis."""
    services = Services.build(Config(log_level="WARNING", player_token_secret=PLAYER_SECRET))
    client = Players(create_app(services.config, services=services).test_client())
    ticket = client.post("/v1/tickets", json=GOOD, player="embedded-player").get_json()
    assert client.post("/v1/tickets", json=GOOD, player="embedded-player").status_code == 409
    assert client.delete(f"/v1/tickets/{ticket['ticket_id']}", player="embedded-player").get_json()["status"] \
        == "cancelled"
    ready = client.get("/readyz")  # Redis is there, but no game service: matching cannot work
    assert ready.status_code == 503 and "game service" in ready.get_json()["detail"]


def test_the_api_on_one_redis_and_on_a_cluster(backend: tuple[str, bool, Any], game_server: GameServer) -> None:
    """Pools sit on different masters of a cluster; "one live ticket per player" still holds across them."""
    redis_url, cluster, _ = backend
    config = Config(redis_url=redis_url, redis_cluster=cluster, game_service_url=game_server.url,
                    game_service_api_key=API_KEY, log_level="WARNING", api_key=API_KEY,
                    player_token_secret=PLAYER_SECRET)
    services = Services.build(config)
    client = Players(create_app(config, services=services).test_client())
    first = client.post("/v1/tickets", json=GOOD, player="alice").get_json()
    secret = client.post(f"/v1/tickets/{first['ticket_id']}/stream-tickets", player="alice").get_json()
    assert services.tickets.redeem_stream_ticket(secret["stream_ticket"], first["ticket_id"]).player_id == "alice"
    for edition, master in (("yucata", True), ("ravensburger", False)):  # other pools, other shards
        body = _problem(client.post("/v1/tickets", json={**GOOD, "edition": edition, "master": master},
                                    player="alice"), 409, "live_ticket_exists")
        assert body["ticket_id"] == first["ticket_id"]
    assert client.get("/v1/queues", key=API_KEY).get_json()["queues"] == {"rio_grande:base:2": 1,
                                                                           "rio_grande:base:3": 1}
    assert client.delete(f"/v1/tickets/{first['ticket_id']}", player="alice").get_json()["status"] == "cancelled"
    moved = client.post("/v1/tickets", json={**GOOD, "edition": "yucata", "master": True}, player="alice").get_json()
    assert moved["status"] == "queued" and moved["ticket_id"][0] != first["ticket_id"][0]
    assert client.get("/v1/queues", key=API_KEY).get_json()["queues"] == {"yucata:master:2": 1, "yucata:master:3": 1}
    assert client.get("/readyz").get_json()["status"] == "ready"


def test_a_create_that_crashed_half_way_does_not_block_its_player(services: Services, clock: FakeClock) -> None:
    """The pointer and the ticket are on different shards: a create that died after setting the pointer leaves a
    pending ticket; it blocks its player for PENDING_STALE seconds at most, and never becomes matchable."""
    tickets, store = services.tickets, services.store
    pool = ("rio_grande", False)
    crashed = "0" + "a" * 31
    keys = [*store.keys.pool_keys(pool), store.keys.ticket(crashed)]
    store.scripts.run("enqueue", keys, crashed, "halfway", "rio_grande", 0, "2", "25.0", "8.3", "", repr(clock.now),
                      repr(clock.now + 300), 4000, "", "default", "default")
    assert store.scripts.run("hold_player", [store.keys.player("default", "halfway")], crashed, "", 4000) == [1]
    with pytest.raises(LiveTicketExists):  # it might still be a create in progress
        tickets.create(player_id="halfway", player_counts=[2], edition="rio_grande", master=False,
                       max_wait_seconds=None)
    with pytest.raises(TicketNotFound):  # a pending ticket is not readable
        tickets.get(crashed)
    clock.advance(TicketService.PENDING_STALE + 1)
    fresh = tickets.create(player_id="halfway", player_counts=[2], edition="rio_grande", master=False,
                           max_wait_seconds=None)
    assert fresh["status"] == "queued"
    assert store.client.get(store.keys.player("default", "halfway")) == fresh["ticket_id"]
    assert store.scripts.run("activate", keys, repr(clock.now), crashed, TicketService.PENDING_STALE) == 0
    assert not store.client.hexists(store.keys.queued(pool), crashed)  # the late half never queues


def test_a_write_no_replica_acknowledged_is_answered_503_and_not_as_done(
        backend: tuple[str, bool, Any], game_server: GameServer) -> None:
    """``MM_REDIS_WAIT_REPLICAS``: a ticket counts once that many replicas hold it. These servers have none, so the
    create is refused as a lost connection would be (its client retries), on one Redis and on a cluster alike; a
    failover with replicas is tests/faults/test_redis_failover.py."""
    redis_url, cluster, _ = backend
    config = Config(redis_url=redis_url, redis_cluster=cluster, game_service_url=game_server.url,
                    game_service_api_key=API_KEY, log_level="WARNING", api_key=API_KEY,
                    player_token_secret=PLAYER_SECRET, redis_wait_replicas=1, redis_wait_timeout=0.05)
    client = Players(create_app(config, services=Services.build(config)).test_client())
    refused = client.post("/v1/tickets", json=GOOD, player="alice")
    _problem(refused, 503, "store_unavailable")
    assert refused.headers["Retry-After"] == "1"
    # nothing was queued, and a read does not wait for replicas (it changed nothing)
    assert client.get("/v1/queues", key=API_KEY).get_json()["queues"] == {}
