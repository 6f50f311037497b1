"""The input guard of the game service (torres_service.limits), on SQLite and on PostgreSQL.

Each hostile body (docs/security.md, "Input limits"), on every endpoint that takes one, is answered with its
precise 4xx as problem details, before any parser could fail, and the log does not change (no game, no event,
the same version); generated JSON shapes never get a 5xx; every unsupported method is a 405 with ``Allow``; a
request head past the limits is 414 or 431; an ``Authorization`` header that is not a bearer token is 401, never
ignored.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from edge_input import PROBLEM_JSON, HostileBody, body_content_types, check_405s, hostile_bodies, json_shapes
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from torres_game.app import create_app
from torres_service.limits import InputLimits

from .conftest import SERVICE, bearer, create_game, make_config

LIMITS = InputLimits()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def api(request: pytest.FixtureRequest) -> FlaskClient:
    """The service's test client on each backend (the PostgreSQL one is shared by the session's tests)."""
    return request.getfixturevalue("pg_client" if request.param == "postgres" else "client")


def _app(client: FlaskClient) -> Flask:
    return client.application


def _log_end(client: FlaskClient) -> int:
    """The position of the last event of any game: a new game or event moves it."""
    notes = _app(client).extensions["torres_game"].store.notifications(limit=100_000)
    return notes[-1].position if notes else 0


def _snapshot(client: FlaskClient, game_id: str) -> tuple[int, int]:
    """Where the log ends and the game's version: what any accepted request would move."""
    return _log_end(client), client.get(f"/v1/games/{game_id}").get_json()["version"]


def assert_unchanged(client: FlaskClient, game_id: str, before: tuple[int, int], *why: Any) -> None:
    store = _app(client).extensions["torres_game"].store
    assert store.notifications(after=before[0], limit=5) == [], why  # no new game, no new event of any game
    assert client.get(f"/v1/games/{game_id}").get_json()["version"] == before[1], why


def assert_problem(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, (status, code, response.get_data(as_text=True)[:300])
    assert response.mimetype == PROBLEM_JSON
    body = response.get_json()
    assert body["status"] == status and body["code"] == code and body["type"] == f"urn:torres:problem:{code}"
    assert body["title"] and body["detail"]
    return body


def _endpoints(client: FlaskClient, game: dict[str, Any]) -> list[tuple[str, dict[str, Any], str]]:
    """(path, a well-formed body that would succeed, the key the hostile value replaces) per endpoint."""
    gid = game["game_id"]
    token = game["seats"][0]["token"]
    legal = client.get(f"/v1/games/{gid}/legal-actions", headers=bearer(token)).get_json()
    return [
        ("/v1/games", {"seats": [{"kind": "human", "player_id": "p1"}, {"kind": "ai", "level": "easy"}]}, "seats"),
        (f"/v1/games/{gid}/actions", {"seat": 0, "action": legal["actions"][0], "expected_version": legal["version"],
                                      "command_id": "guard-1"}, "expected_version"),
        (f"/v1/games/{gid}/resign", {"seat": 0}, "seat"),
        (f"/v1/games/{gid}/undo", {"seat": 0, "expected_version": legal["version"], "command_id": "guard-2"}, "seat"),
        (f"/v1/games/{gid}/abandon", {"reason": "guard"}, "reason"),
    ]


def test_each_hostile_body_gets_its_precise_4xx_and_changes_nothing(api: FlaskClient) -> None:
    """The hostile bodies on every endpoint that takes one; the well-formed body is accepted afterwards, so the
    refusals were the guard's and nothing else's."""
    game = create_game(api)
    headers = {**SERVICE, **bearer(game["seats"][0]["token"])}
    for path, good, key in _endpoints(api, game):
        for hostile in hostile_bodies(good, key):
            before = _snapshot(api, game["game_id"])
            response = api.post(path, data=hostile.data, content_type=hostile.content_type, headers=headers)
            body = assert_problem(response, hostile.status, hostile.code)
            if hostile.code in ("json_too_deep", "json_number_too_long"):
                assert body["limit"] == {"json_too_deep": LIMITS.max_json_depth,
                                         "json_number_too_long": LIMITS.max_number_length}[hostile.code]
            assert_unchanged(api, game["game_id"], before, path, hostile.name)
    accepted = api.post(f"/v1/games/{game['game_id']}/actions", json=_endpoints(api, game)[1][1], headers=headers)
    assert accepted.status_code == 201, accepted.get_json()


def test_a_body_past_the_size_limit_is_413(api: FlaskClient) -> None:
    game = create_game(api)
    before = _snapshot(api, game["game_id"])
    big = b'{"seats": "' + b"x" * LIMITS.max_body_bytes + b'"}'
    body = assert_problem(api.post("/v1/games", data=big, content_type="application/json", headers=SERVICE), 413,
                          "payload_too_large")
    assert body["limit"] == LIMITS.max_body_bytes
    assert_unchanged(api, game["game_id"], before)


def test_an_empty_body_is_still_a_field_error(client: FlaskClient) -> None:
    """No body is not a media-type question: the schema says what is missing, as before."""
    for content_type in ("application/json", "text/plain", None):
        response = client.post("/v1/games", data=b"", content_type=content_type, headers=SERVICE)
        assert assert_problem(response, 400, "validation_failed")["errors"] == {
            "seats": ["Missing data for required field."]}


@settings(max_examples=120, derandomize=True, database=None, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_generated_json_shapes_never_get_a_5xx(api: FlaskClient, data: st.DataObject) -> None:
    game = _app(api).config.get("SHAPES_GAME")
    if game is None:
        game = _app(api).config["SHAPES_GAME"] = create_game(api)
    endpoints = _endpoints(api, game)
    path, good, _ = data.draw(st.sampled_from(endpoints), label="endpoint")
    if path.endswith("/resign") or path.endswith("/abandon"):  # a valid one would end the game: stale version
        path = path.replace("/resign", "/undo").replace("/abandon", "/undo")
    text = data.draw(json_shapes(list(good)), label="body")
    content_type = data.draw(body_content_types(), label="content type")
    before = _snapshot(api, game["game_id"])
    response = api.post(path, data=text.encode("utf-8", "surrogatepass"), content_type=content_type,
                        headers={**SERVICE, **bearer(game["seats"][0]["token"])})
    assert response.status_code < 500, response.get_data(as_text=True)[:300]
    if response.status_code >= 400:
        assert response.mimetype == PROBLEM_JSON
        event(f"{response.status_code} {response.get_json()['code']}")
        assert_unchanged(api, game["game_id"], before, path, text[:200])
    elif path == "/v1/games":
        assert response.status_code == 201  # a well-formed creation: the one way to change the log here
    else:
        pytest.fail(f"{path} accepted {text[:200]!r}")


def _concrete(rule: Any, game_id: str) -> str:
    values = {"game_id": game_id, "name": "index.html", "filename": "x", "seat": 0}
    return rule.build({arg: values.get(arg, "x") for arg in rule.arguments}, append_unknown=False)[1]


def test_every_unsupported_method_is_405_with_allow(client: FlaskClient) -> None:
    """Every route of the app, every method it does not take (standard or not): 405 problem details whose
    ``Allow`` lists what the URL does take (RFC 9110 15.5.6)."""
    app = _app(client)
    game = create_game(client)
    checked = check_405s(app, client, lambda rule: _concrete(rule, game["game_id"]), assert_problem, SERVICE)
    assert checked > 50, checked


# -- the head: 414, 431, 401 ------------------------------------------------------------------------------------

def test_a_long_url_is_414_and_large_headers_431(client: FlaskClient) -> None:
    game = create_game(client)
    long_path = f"/v1/games/{game['game_id']}/events?after=0&pad=" + "x" * LIMITS.max_url_bytes
    assert assert_problem(client.get(long_path), 414, "uri_too_long")["limit"] == LIMITS.max_url_bytes
    long_id = "/v1/games/" + "a" * LIMITS.max_url_bytes  # before the id is looked at (400 malformed_id)
    assert_problem(client.get(long_id), 414, "uri_too_long")
    assert client.get(f"/v1/games/{game['game_id']}/view?pad=" + "x" * 3000).status_code == 200  # not a list
    wide = {"X-Padding": "x" * LIMITS.max_header_bytes}
    assert assert_problem(client.get("/v1/games", headers=wide), 431, "headers_too_large")["limit"] == \
        LIMITS.max_header_bytes
    many = {f"X-Pad-{n}": "x" for n in range(LIMITS.max_headers + 1)}
    assert assert_problem(client.get("/v1/games", headers=many), 431, "headers_too_large")["limit"] == \
        LIMITS.max_headers
    assert client.get("/v1/games", headers={"X-Padding": "x" * 7000, **SERVICE}).status_code == 200


@pytest.mark.parametrize("authorization", [
    "Basic dXNlcjpwYXNz", "Bearer", "Bearer ", "", "Token abc", "Bearer a b", "Bearer tok\u00e9n", "Digest x=y",
    "bearer", "Bearer\tabc",
])
def test_an_authorization_header_that_is_not_a_bearer_token_is_401(api: FlaskClient, authorization: str) -> None:
    """Never ignored: beside a valid service key, a Basic (or malformed) Authorization was served with the key's
    rights; now it is refused on every endpoint, reads included, and nothing is created."""
    game = create_game(api)
    before = _snapshot(api, game["game_id"])
    headers = {**SERVICE, "Authorization": authorization}
    good = {"seats": [{"kind": "human"}, {"kind": "human"}]}
    for response in (api.post("/v1/games", json=good, headers=headers),
                     api.get(f"/v1/games/{game['game_id']}/view", headers=headers),
                     api.get("/v1/games", headers=headers)):
        assert_problem(response, 401, "unsupported_authorization")
        assert response.headers["WWW-Authenticate"] == "Bearer"
    assert_unchanged(api, game["game_id"], before)


@pytest.mark.parametrize("authorization", ["Bearer {token}", "bearer {token}", "BEARER   {token}  "])
def test_a_bearer_token_in_any_case_is_understood(client: FlaskClient, authorization: str) -> None:
    game = create_game(client)
    headers = {"Authorization": authorization.format(token=game["seats"][0]["token"])}
    response = client.get(f"/v1/games/{game['game_id']}/legal-actions", headers=headers)
    assert response.status_code == 200 and response.get_json()["seat"] == 0


@pytest.fixture
def small_limits(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> Iterator[FlaskClient]:
    """The limits are settings: an app built with TORRES_* variables set takes them."""
    for name, value in {"TORRES_MAX_BODY_BYTES": "200", "TORRES_JSON_MAX_DEPTH": "3",
                        "TORRES_JSON_MAX_NUMBER_LENGTH": "5", "TORRES_MAX_URL_BYTES": "100",
                        "TORRES_MAX_HEADER_BYTES": "300", "TORRES_MAX_HEADERS": "30"}.items():
        monkeypatch.setenv(name, value)
    app = create_app(make_config(f"sqlite:///{tmp_path / 'small.sqlite3'}"))
    yield app.test_client()
    app.extensions["torres_game"].close()


def test_every_limit_is_a_setting(small_limits: FlaskClient) -> None:
    client = small_limits
    seats = '[{"kind": "human"}, {"kind": "human"}]'
    assert client.post("/v1/games", data='{"seats": ' + seats + "}", content_type="application/json",
                       headers=SERVICE).status_code == 201
    cases: list[HostileBody] = [
        HostileBody("body", b'{"seats": "' + b"x" * 200 + b'"}', "application/json", 413, "payload_too_large"),
        HostileBody("depth", b'{"seats": [[[1]]]}', "application/json", 400, "json_too_deep"),
        HostileBody("number", b'{"seats": 123456}', "application/json", 400, "json_number_too_long"),
    ]
    for case in cases:
        response = client.post("/v1/games", data=case.data, content_type=case.content_type, headers=SERVICE)
        assert_problem(response, case.status, case.code)
    assert_problem(client.get("/v1/games?pad=" + "x" * 100), 414, "uri_too_long")
    assert_problem(client.get("/v1/games", headers={"X-Pad": "x" * 300}), 431, "headers_too_large")
    assert_problem(client.get("/v1/games", headers={f"X-P{n}": "x" for n in range(31)}), 431, "headers_too_large")
