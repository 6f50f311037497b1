"""The matchmaking service's edge, on the real Redis server: the OpenAPI gate and hostile input.

As for the game service (``tests/game/test_openapi_gate.py``): schemathesis generates valid and invalid
requests for every operation and checks that none answers 5xx, that every status is documented for its
operation and every body matches its schema. Well-formed ticket and player ids are replaced by a real queued
ticket's and its player's, so that reads and cancellations succeed too. The requests carry real credentials:
that player's token and the portal's key, or the token alone, or none.

Then hostile strings go into every path segment, query argument and body field the document lists: never a
5xx, problem+json for every error, and no key of the Redis database changes unless the request was valid.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from typing import Any

import edge_input as edge
import pytest
import redis
import schemathesis
from flask import Flask
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from torres_matchmaking.app import Services, create_app
from torres_matchmaking.config import Config
from torres_service.fields import DISPLAY_NAME, PLAYER_ID, TICKET_ID

from .conftest import API_KEY, REDIS_URL, as_player

PLAYER = "gate-player"


def _document() -> dict[str, Any]:
    """The service's /openapi.json, read at collection from an app on the embedded store (no server needed), with
    the dev issuer's endpoint in it."""
    return create_app(Config(log_level="WARNING", dev_issuer=True)).test_client().get("/openapi.json").get_json()


schema = schemathesis.openapi.from_dict(_document())  # see the game gate for why not from_fixture
SECURITY_HEADERS = edge.security_headers(_document())


@pytest.fixture(params=["redis"])
def gate_app(config: Config) -> Iterator[Flask]:
    """The matchmaker on the test Redis, with a live ticket. The one parameter names the store in each test's id,
    after the operation's: schemathesis' tests of one function otherwise share one node id under pytest 9, and
    pytest-xdist, which hands out tests by node id, would run only one of them (tests/conftest.py refuses that)."""
    config = config.with_(dev_issuer=True)
    app = create_app(config, services=Services.build(config))
    app.config["GATE_TICKET"] = _live_ticket(app)
    yield app


def _live_ticket(app: Flask) -> dict[str, Any]:
    response = app.test_client().post("/v1/tickets", json={"player_counts": [2]}, headers=as_player(PLAYER))
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def _credentials(case: Any) -> dict[str, str]:
    """One of three callers, chosen from the generated request itself so that the run stays repeatable: the
    ticket's player with the portal's key too, the player alone, or nobody."""
    pick = zlib.crc32(repr((case.query, case.body, case.path_parameters)).encode("utf-8", "surrogatepass")) % 3
    if pick == 0:
        return {**as_player(PLAYER), "X-API-Key": API_KEY}
    return as_player(PLAYER) if pick == 1 else {}


def _within_the_tickets_lifetime(case: Any, app: Flask) -> None:
    """The one rule across fields a JSON schema cannot state (documented in max_wait_seconds' description):
    ``max_wait_seconds`` at most the ticket's lifetime (``ttl_seconds``, else the server's default); a generated
    body past it is brought back to it, so that positive_data_acceptance tests the rest of the body."""
    body = case.body if isinstance(case.body, dict) else None
    if body is None or case.path != "/v1/tickets":
        return
    wait = body.get("max_wait_seconds")
    ttl = body.get("ttl_seconds", app.extensions["torres_matchmaking"].config.ticket_ttl)
    numbers = all(isinstance(v, int | float) and not isinstance(v, bool) for v in (wait, ttl))
    if numbers and wait > ttl:
        body["max_wait_seconds"] = ttl


@schema.parametrize()
@edge.GATE_SETTINGS
def test_the_matchmaker_does_what_its_openapi_says(case: Any, gate_app: Flask) -> None:
    """Every schemathesis check (edge_input.CHECKS), the authentication ones included (see the game gate)."""
    ticket = gate_app.config["GATE_TICKET"]
    if TICKET_ID.accepts(case.path_parameters.get("ticket_id")):
        case.path_parameters["ticket_id"] = ticket["ticket_id"]
    if PLAYER_ID.accepts(case.path_parameters.get("player_id")):
        case.path_parameters["player_id"] = ticket["player_id"]
    _within_the_tickets_lifetime(case, gate_app)
    edge.shorten_held_open(case)
    edge.via_wsgi(case, gate_app)
    case.call_and_validate(headers=edge.as_caller(case, _credentials(case), SECURITY_HEADERS), checks=edge.CHECKS,
                           app=gate_app, environ_base=edge.LOOPBACK)


@schema.parametrize()
@settings(edge.GATE_SETTINGS, max_examples=6)
def test_no_operation_serves_a_credential_its_openapi_does_not_declare(case: Any, gate_app: Flask) -> None:
    """A valid credential of each scheme an operation does not declare, alone, must not be served where no
    credential is refused (edge.undeclared_schemes_served; the game gate has the same)."""
    ticket = gate_app.config["GATE_TICKET"]
    if TICKET_ID.accepts(case.path_parameters.get("ticket_id")):
        case.path_parameters["ticket_id"] = ticket["ticket_id"]
    if PLAYER_ID.accepts(case.path_parameters.get("player_id")):
        case.path_parameters["player_id"] = ticket["player_id"]
    query = case.query if isinstance(case.query, dict) else {}
    if "stream_ticket" in query:
        return  # single-use
    _within_the_tickets_lifetime(case, gate_app)
    edge.shorten_held_open(case)
    valid = {"playerToken": as_player(PLAYER), "apiKey": {"X-API-Key": API_KEY}}
    assert edge.undeclared_schemes_served(case, gate_app, valid, SECURITY_HEADERS) == []


# -- hostile strings in every path segment, query argument and body field ------------------------------------

SLOTS = edge.doc_slots(_document())
# Fields whose valid values a hostile string can happen to be (an id such as "true"): a 2xx is right then.
KINDS = {"player_id": PLAYER_ID, "ticket_id": TICKET_ID, "name": DISPLAY_NAME}  # name: the dev issuer's


def _redis_state(raw: redis.Redis) -> dict[bytes, bytes | None]:
    """Every key and its serialized value (DUMP): any change to a ticket, queue or rating shows."""
    return {key: raw.dump(key) for key in sorted(raw.keys("*"))}


def _send_hostile(app: Flask, raw: redis.Redis, slot: edge.Slot, value: str) -> None:
    ticket = app.config["GATE_TICKET"]
    # a well-formed ticket for the player who already has a live one (409) that only the hostile field can spoil;
    # the dev issuer's well-formed request names that player
    body = {"player_counts": [2]} if slot.path == "/v1/tickets" else \
        {"player_id": PLAYER} if slot.path == "/v1/dev/player-tokens" else {}
    method, url, data = edge.hostile_request(
        slot, value, path_values={"ticket_id": ticket["ticket_id"], "player_id": ticket["player_id"]}, body=body)
    before = _redis_state(raw)
    response = app.test_client().open(url, method=method, data=data, content_type="application/json",
                                      headers={**as_player(PLAYER), "X-API-Key": API_KEY})
    assert response.status_code < 500, (str(slot), value[:60], response.get_data(as_text=True)[:300])
    if response.status_code >= 400:
        assert response.mimetype == "application/problem+json", (str(slot), value[:60])
        assert _redis_state(raw) == before, (str(slot), value[:60], response.status_code)
        return
    # accepted: only a value valid for its field (the shared definition, matched whole) may be
    if slot.name in KINDS or method != "GET":
        assert slot.name in KINDS and KINDS[slot.name].accepts(value), (str(slot), value[:60], response.status_code)
    if method == "POST":
        raw.flushdb()
        app.config["GATE_TICKET"] = _live_ticket(app)


@pytest.fixture
def raw_redis(redis_client: redis.Redis) -> Iterator[redis.Redis]:
    client = redis.Redis.from_url(REDIS_URL)
    yield client
    client.close()


def test_every_listed_hostile_string_in_every_slot(gate_app: Flask, raw_redis: redis.Redis) -> None:
    assert len(SLOTS) >= 8, [str(s) for s in SLOTS]
    for slot in SLOTS:
        for value in edge.HOSTILE:
            _send_hostile(gate_app, raw_redis, slot, value)


@settings(max_examples=150, derandomize=True, database=None, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(slot=st.sampled_from(SLOTS), value=edge.hostile_strings())
def test_generated_hostile_strings_in_every_slot(gate_app: Flask, raw_redis: redis.Redis, slot: edge.Slot,
                                                 value: str) -> None:
    _send_hostile(gate_app, raw_redis, slot, value)


@pytest.mark.parametrize(("method", "path"), [("GET", "/v1/tickets/{ticket_id}"), ("DELETE", "/v1/tickets/{ticket_id}"),
                                              ("GET", "/v1/players/{player_id}/rating")])
@pytest.mark.parametrize("suffix", ["%0A", "%0a", "%00", "%0D%0A", "%20"])
def test_an_id_with_a_trailing_newline_is_malformed(gate_app: Flask, path: str, method: str, suffix: str) -> None:
    """A finding of the edge gate: ``re.match`` with ``$`` let "bad_x\\n" through; every id is matched whole."""
    ticket = gate_app.config["GATE_TICKET"]
    url = path.format(ticket_id=ticket["ticket_id"] + suffix, player_id=ticket["player_id"] + suffix)
    response = gate_app.test_client().open(url, method=method, headers=as_player(PLAYER))
    assert response.status_code == 400, response.get_json()
    assert response.get_json()["code"] == "malformed_id"


def test_405_names_the_allowed_methods(gate_app: Flask) -> None:
    response = gate_app.test_client().put("/v1/tickets", headers=as_player(PLAYER))
    assert response.status_code == 405 and response.get_json()["code"] == "method_not_allowed"
    assert "POST" in {m.strip() for m in response.headers["Allow"].split(",")}
