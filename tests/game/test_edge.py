"""The game service's edge, on SQLite and on PostgreSQL: the OpenAPI gate and hostile input.

schemathesis generates requests for every operation from ``/openapi.json`` (valid and invalid ones) and
checks each answer: never a 5xx, a status the document lists for that operation, a body that matches the
documented schema. The requests carry real credentials (the service key and a seat token, or the admin key,
or none) and, where the path has a well-formed game id, a real game's, so that the success paths are
exercised too, not only the 404s.

Then hostile strings (NUL, lone surrogates, RTL marks, 10 kB, path separators, SQL and JSON metacharacters, and
hypothesis' own text) go into every path segment, query argument and body field the document lists: never a
5xx, always problem+json for an error, and the event log (every game's) never changes.
"""

from __future__ import annotations

import contextlib
import random
import re
import zlib
from collections.abc import Callable, Iterator
from typing import Any

import edge_input as edge
import pytest
import schemathesis
from flask import Flask
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from torres_game.app import create_app
from torres_game.http.push import UPGRADE_HEADERS
from torres_game.http.schemas import EXTERNAL_ID
from torres_service.fields import GAME_ID, TEXT

from .conftest import ADMIN, SERVICE, bearer, create_game, make_config, openapi_document, play_one

#: Body fields that some hostile strings are valid values of: free text (the abandon's reason, which the ended game
#: answers as a replay) and a portal's id for a new game (which then creates that game, as it should).
VALID_WHEN = {"reason": TEXT, "external_id": EXTERNAL_ID}


@pytest.fixture(scope="module", params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def gate_app(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
             throwaway_database: Callable[[str], contextlib.AbstractContextManager[str]]) -> Iterator[Flask]:
    """A service per backend (its own database), with one game a few moves in; shared by this module's tests
    (the hostile ones check that they change nothing)."""
    with contextlib.ExitStack() as stack:
        if request.param == "postgres":
            url = stack.enter_context(throwaway_database("torres_gate"))
        else:
            url = f"sqlite:///{tmp_path_factory.mktemp('gate') / 'gate.sqlite3'}"
        app = create_app(make_config(url, pool_max=4))
        stack.callback(app.extensions["torres_game"].close)
        client = app.test_client()
        game = create_game(client, [{"kind": "human", "player_id": "p1"}, {"kind": "ai", "level": "easy"}])
        rng = random.Random(7)
        for n in range(3):
            summary = client.get(f"/v1/games/{game['game_id']}").get_json()
            if summary["to_move"] != 0:
                break
            play_one(client, game, rng, n)
        # A finished game in the transparency log, so that the gate sees the log's answers, not only its 404s.
        ended = create_game(client, [{"kind": "human", "player_id": "p2"}, {"kind": "human", "player_id": "p3"}])
        abandoned = client.post(f"/v1/games/{ended['game_id']}/abandon", json={"reason": "gate"}, headers=SERVICE)
        assert abandoned.status_code < 300, abandoned.get_json()
        assert app.extensions["torres_game"].translog.integrate_all() >= 1
        app.config["GATE_GAME"] = game
        app.config["GATE_PRIVATE"] = create_game(client, [{"kind": "human", "player_id": "p4"},
                                                          {"kind": "ai", "level": "easy"}], visibility="private")
        yield app


# Not schemathesis.pytest.from_fixture: its lazy loader sets pytest's private Node._nodeid, gone in pytest 9.2.
# The document is loaded once; each call goes to the backend's app (``app=``), a WSGI call in-process.
schema = schemathesis.openapi.from_dict(openapi_document())  # read at collection
SECURITY_HEADERS = edge.security_headers(openapi_document())


def _credentials(case: Any, game: dict[str, Any]) -> dict[str, str]:
    """One of three callers, chosen from the generated request itself so that the run stays repeatable."""
    pick = zlib.crc32(repr((case.query, case.body, case.path_parameters)).encode("utf-8", "surrogatepass")) % 3
    if pick == 0:
        return {**SERVICE, **bearer(game["seats"][0]["token"])}
    return ADMIN if pick == 1 else {}


def _a_whole_upgrade(headers: dict[str, str]) -> bool:
    """The four handshake headers, each as documented (then the service would switch protocols)."""
    return (headers.get("Upgrade") == "websocket" and headers.get("Connection") == "Upgrade"
            and headers.get("Sec-WebSocket-Version") == "13"
            and re.fullmatch(UPGRADE_HEADERS[3]["schema"]["pattern"], headers.get("Sec-WebSocket-Key", "")) is not None)


@schema.parametrize()
@edge.GATE_SETTINGS
def test_the_game_service_does_what_its_openapi_says(case: Any, gate_app: Flask) -> None:
    """Every schemathesis check (edge_input.CHECKS), the authentication ones included: a request that carries
    a declared credential is sent again without it and with an invalid one, and must then be refused (401/403)
    where the operation does not also declare anonymous access (``{}``)."""
    game = gate_app.config["GATE_GAME"]
    if GAME_ID.accepts(case.path_parameters.get("game_id")):
        case.path_parameters["game_id"] = game["game_id"]
    if isinstance(case.query, dict) and isinstance(case.query.get("cursor"), str):
        del case.query["cursor"]  # opaque: only a cursor the service gave out is valid (a forged one: 400)
    edge.shorten_held_open(case)
    if case.path.endswith("/ws") and _a_whole_upgrade(case.headers or {}):
        return  # an upgrade needs the connection's socket, which a WSGI call has not: the 101 of a documented
        # upgrade is tested over gunicorn (test_push, test_seat_tokens); its refusals (any header off) run here
    headers = edge.as_caller(case, _credentials(case, game), SECURITY_HEADERS)
    edge.via_wsgi(case, gate_app)
    case.call_and_validate(headers=headers, checks=edge.CHECKS, app=gate_app,
                           environ_base=edge.LOOPBACK)


@schema.parametrize()
@settings(edge.GATE_SETTINGS, max_examples=6)
def test_no_operation_serves_a_credential_its_openapi_does_not_declare(case: Any, gate_app: Flask) -> None:
    """On a private game (no credential: 404), a valid credential of each scheme an operation does not declare,
    alone, must not be served (``GET /record`` served the API key undeclared): edge.undeclared_schemes_served."""
    game = gate_app.config["GATE_PRIVATE"]
    if GAME_ID.accepts(case.path_parameters.get("game_id")):
        case.path_parameters["game_id"] = game["game_id"]
    query = case.query if isinstance(case.query, dict) else {}
    if case.path.endswith("/ws") or "stream_ticket" in query:
        return  # an upgrade needs a socket (the /ws gate is over gunicorn); a stream ticket is single-use
    edge.shorten_held_open(case)
    valid = {"seatToken": bearer(game["seats"][0]["token"]), "apiKey": SERVICE, "adminKey": ADMIN}
    assert edge.undeclared_schemes_served(case, gate_app, valid, SECURITY_HEADERS) == []


# -- hostile strings in every path segment, query argument and body field ------------------------------------

SLOTS = edge.doc_slots(openapi_document())


def _new_events(app: Flask, after: int) -> list[Any]:
    """Events of any game committed after position ``after`` (a new game is an event too)."""
    return app.extensions["torres_game"].store.notifications(after=after, limit=5)


@pytest.fixture
def hostile_app(gate_app: Flask) -> Flask:
    """The gate's app, with the game's version and the log's end noted now (the gate itself writes). The game is
    ended first: a hostile string that is a valid abandon reason (free text) is then a replay that appends nothing,
    whether or not the gate's generated requests happened to end it."""
    game_id = gate_app.config["GATE_GAME"]["game_id"]
    ended = gate_app.test_client().post(f"/v1/games/{game_id}/abandon", json={"reason": "hostile sweep"},
                                        headers=SERVICE)
    assert ended.status_code in (201, 409), ended.get_json()  # 409: the gate had ended it otherwise
    gate_app.config["GATE_VERSION"] = gate_app.test_client().get(f"/v1/games/{game_id}").get_json()["version"]
    gate_app.config["GATE_LOG_END"] = gate_app.extensions["torres_game"].store.notifications(
        limit=100_000)[-1].position
    return gate_app


def _send_hostile(app: Flask, slot: edge.Slot, value: str) -> None:
    game = app.config["GATE_GAME"]
    version = app.config["GATE_VERSION"]
    body: dict[str, Any] = {
        # a well-formed creation that only the hostile field can spoil, and an action at a stale version
        "/v1/games": {"seats": [{"kind": "human", "player_id": "p1"}, {"kind": "ai"}]},
        "/v1/games/{game_id}/actions": {"seat": 0, "action": {"type": "end_turn", "stack": 0, "spread": []},
                                        "expected_version": version - 1, "command_id": "hostile-1"},
    }.get(slot.path, {})
    method, url, data = edge.hostile_request(slot, value, path_values={"game_id": game["game_id"]}, body=body)
    response = app.test_client().open(url, method=method, data=data, content_type="application/json",
                                       headers={**SERVICE, **bearer(game["seats"][0]["token"])})
    assert response.status_code < 500, (str(slot), value[:60], response.get_data(as_text=True)[:300])
    if response.status_code >= 400:
        assert response.mimetype == "application/problem+json", (str(slot), value[:60])
    accepted = slot.where == "body" and slot.name in VALID_WHEN and VALID_WHEN[slot.name].accepts(value)
    if 200 <= response.status_code < 300:  # no hostile string is a game id, nor a valid value of a body field
        # ... except where its kind takes it (VALID_WHEN)
        assert slot.where == "query" or accepted, (str(slot), value[:60], response.status_code)
    new = _new_events(app, app.config["GATE_LOG_END"])
    if accepted and slot.name == "external_id":  # a new game, and only that
        assert response.status_code == 201 and {e.game_id for e in new} <= {response.get_json()["game_id"]}
        app.config["GATE_LOG_END"] = new[-1].position if new else app.config["GATE_LOG_END"]
    else:
        assert new == [], (str(slot), value[:60], response.status_code)


def test_every_listed_hostile_string_in_every_slot(hostile_app: Flask) -> None:
    """Each string of the list in each place a client can put one: the exhaustive, repeatable sweep."""
    assert len(SLOTS) > 20, [str(s) for s in SLOTS]  # the walk found the document's slots
    for slot in SLOTS:
        for value in edge.HOSTILE:
            _send_hostile(hostile_app, slot, value)


@settings(max_examples=150, derandomize=True, database=None, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(slot=st.sampled_from(SLOTS), value=edge.hostile_strings())
def test_generated_hostile_strings_in_every_slot(hostile_app: Flask, slot: edge.Slot, value: str) -> None:
    """Hypothesis' own strings (control characters, surrogates, long runs) in a slot drawn at random."""
    _send_hostile(hostile_app, slot, value)


@pytest.mark.parametrize("suffix", ["%0A", "%0a", "%00", "%0D%0A", "%20"])
@pytest.mark.parametrize("tail", ["", "/view", "/events", "/legal-actions", "/state", "/verify", "/wait?version=0",
                                  "/stream"])
def test_a_game_id_with_a_trailing_newline_is_malformed(gate_app: Flask, suffix: str, tail: str) -> None:
    """As in the matchmaker, an id is matched whole, so "<real id>\\n" is 400 malformed_id
    (not the real game, not a 404)."""
    game_id = gate_app.config["GATE_GAME"]["game_id"]
    response = gate_app.test_client().get(f"/v1/games/{game_id}{suffix}{tail}")
    assert response.status_code == 400, response.get_json()
    assert response.get_json()["code"] == "malformed_id"
    posted = gate_app.test_client().post(f"/v1/games/{game_id}{suffix}/actions", json={}, headers=SERVICE)
    assert posted.status_code == 400 and posted.get_json()["code"] == "malformed_id"


def test_405_names_the_allowed_methods(gate_app: Flask) -> None:
    """RFC 9110 15.5.6: a 405 carries ``Allow``; the problem body does not lose it."""
    response = gate_app.test_client().delete("/v1/games")
    assert response.status_code == 405 and response.get_json()["code"] == "method_not_allowed"
    assert {"GET", "POST"} <= {m.strip() for m in response.headers["Allow"].split(",")}


@pytest.mark.postgres
def test_a_value_the_store_refuses_is_400_not_500(pg_url: str) -> None:
    """The backstop behind the edge checks: PostgreSQL's own refusal of a NUL (psycopg.DataError) is answered
    as the caller's input (400 invalid_input), not as a server error."""
    import psycopg
    from flask import Flask as Bare

    from torres_service.limits import InputLimits
    from torres_service.problems import problem_api

    app = Bare("backstop")
    problem_api(app, title="t", description="d", limits=InputLimits(max_body_bytes=1024),
                store_input_errors=(psycopg.DataError,))

    @app.get("/echo/<value>")
    def echo(value: str) -> dict[str, Any]:
        with psycopg.connect(pg_url) as conn:
            return {"value": conn.execute("SELECT %s::text", (value,)).fetchone()[0]}

    assert app.test_client().get("/echo/fine").get_json() == {"value": "fine"}
    refused = app.test_client().get("/echo/a%00b")
    assert refused.status_code == 400 and refused.get_json()["code"] == "invalid_input"
