"""Every error path of POST /actions (and friends): status, problem+json code, and an unchanged log."""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient

from .conftest import ADMIN, SERVICE, bearer, create_game, event_count

PROBLEM = "application/problem+json"


@pytest.fixture
def game(client: FlaskClient) -> dict[str, Any]:
    return create_game(client)


def legal(client: FlaskClient, game: dict[str, Any], seat: int = 0) -> dict[str, Any]:
    token = game["seats"][seat]["token"]
    return client.get(f"/v1/games/{game['game_id']}/legal-actions", headers=bearer(token)).get_json()


def post_action(client: FlaskClient, game: dict[str, Any], body: Any, headers: dict[str, str] | None = None,
                **kwargs: Any) -> Any:
    headers = bearer(game["seats"][0]["token"]) if headers is None else headers
    if isinstance(body, str):
        return client.post(f"/v1/games/{game['game_id']}/actions", data=body, headers=headers,
                           content_type="application/json")
    return client.post(f"/v1/games/{game['game_id']}/actions", json=body, headers=headers, **kwargs)


def good_body(client: FlaskClient, game: dict[str, Any], **changes: Any) -> dict[str, Any]:
    options = legal(client, game)
    return {"seat": 0, "action": options["actions"][0], "expected_version": options["version"],
            "command_id": "cmd-1", **changes}


def assert_problem(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.get_json()
    assert response.mimetype == PROBLEM
    body = response.get_json()
    assert body["status"] == status and body["code"] == code
    assert body["type"] == f"urn:torres:problem:{code}" and body["title"] and body["detail"]
    return body


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (lambda b: {**b, "colour": "red"}, "colour"),
        (lambda b: {k: v for k, v in b.items() if k != "command_id"}, "command_id"),
        (lambda b: {**b, "expected_version": "7"}, "expected_version"),
        (lambda b: {**b, "seat": -1}, "seat"),
        (lambda b: {**b, "action": {"at": "C3"}}, "action"),
        (lambda b: {**b, "action": "place_start_knight"}, "action"),
    ],
    ids=["unknown-field", "missing-field", "string-version", "negative-seat", "action-without-type",
         "action-not-object"],
)
def test_400_field_errors(client: FlaskClient, game: dict[str, Any], mutate: Any, field: str) -> None:
    before = event_count(client, game["game_id"])
    body = assert_problem(post_action(client, game, mutate(good_body(client, game))), 400, "validation_failed")
    assert field in body["errors"]
    assert event_count(client, game["game_id"]) == before


@pytest.mark.parametrize("raw", ["{not json", "[1, 2]", "", "null"])
def test_400_malformed_json(client: FlaskClient, game: dict[str, Any], raw: str) -> None:
    before = event_count(client, game["game_id"])
    assert_problem(post_action(client, game, raw), 400, "validation_failed")
    assert event_count(client, game["game_id"]) == before


def test_401_without_token(client: FlaskClient, game: dict[str, Any]) -> None:
    before = event_count(client, game["game_id"])
    assert_problem(post_action(client, game, good_body(client, game), headers={}), 401, "unauthenticated")
    assert event_count(client, game["game_id"]) == before


def test_403_wrong_token(client: FlaskClient, game: dict[str, Any]) -> None:
    other = create_game(client)
    before = event_count(client, game["game_id"])
    for token in ("garbage", other["seats"][0]["token"]):
        assert_problem(post_action(client, game, good_body(client, game), headers=bearer(token)), 403, "forbidden")
    # seat 1's token cannot act for seat 0
    response = post_action(client, game, good_body(client, game), headers=bearer(game["seats"][1]["token"]))
    assert_problem(response, 403, "forbidden")
    # the service key may act only for AI seats
    assert_problem(post_action(client, game, good_body(client, game), headers=SERVICE), 403, "forbidden")
    assert event_count(client, game["game_id"]) == before


def test_403_not_your_turn(client: FlaskClient, game: dict[str, Any]) -> None:
    before = event_count(client, game["game_id"])
    body = good_body(client, game, seat=1)
    response = post_action(client, game, body, headers=bearer(game["seats"][1]["token"]))
    assert_problem(response, 403, "not_your_turn")
    assert legal(client, game, 1)["actions"] == []
    assert event_count(client, game["game_id"]) == before


def test_404_unknown_game(client: FlaskClient, game: dict[str, Any]) -> None:
    body = good_body(client, game)
    response = client.post("/v1/games/no-such-game/actions", json=body, headers=bearer(game["seats"][0]["token"]))
    assert_problem(response, 404, "game_not_found")
    for path in ("", "/view", "/legal-actions", "/events", "/state", "/verify", "/wait?version=0"):
        assert_problem(client.get(f"/v1/games/no-such-game{path}", headers=ADMIN), 404, "game_not_found")
    assert event_count(client, game["game_id"]) == 1


def test_409_stale_version_carries_current_version(client: FlaskClient, game: dict[str, Any]) -> None:
    first = good_body(client, game)
    assert post_action(client, game, first).status_code == 201
    before = event_count(client, game["game_id"])
    seat1 = legal(client, game, 1)
    stale = {"seat": 1, "action": seat1["actions"][0], "expected_version": first["expected_version"],
             "command_id": "cmd-2"}
    response = post_action(client, game, stale, headers=bearer(game["seats"][1]["token"]))
    body = assert_problem(response, 409, "version_conflict")
    assert body["current_version"] == first["expected_version"] + 1
    assert event_count(client, game["game_id"]) == before


def test_422_illegal_action_carries_the_rule(client: FlaskClient, game: dict[str, Any]) -> None:
    before = event_count(client, game["game_id"])
    body = good_body(client, game, action={"type": "place_start_knight", "at": "A1"})
    problem = assert_problem(post_action(client, game, body), 422, "illegal_action")
    assert problem["detail"]
    bogus = good_body(client, game, action={"type": "teleport"}, command_id="cmd-x")
    assert_problem(post_action(client, game, bogus), 422, "illegal_action")
    assert event_count(client, game["game_id"]) == before


def test_duplicate_command_id_replays_the_original(client: FlaskClient, game: dict[str, Any]) -> None:
    body = good_body(client, game)
    first = post_action(client, game, body)
    assert first.status_code == 201 and first.get_json()["version"] == 2
    count = event_count(client, game["game_id"])
    again = post_action(client, game, body)
    assert again.status_code == 201 and again.get_json() == first.get_json()
    assert again.headers["Idempotent-Replayed"] == "true"
    assert event_count(client, game["game_id"]) == count
    changed = {**body, "action": {"type": "end_turn"}}
    reused = assert_problem(post_action(client, game, changed), 409, "command_id_reused")
    assert "different" in reused["detail"]
    assert event_count(client, game["game_id"]) == count


def test_create_game_errors(client: FlaskClient) -> None:
    seats = [{"kind": "human"}, {"kind": "ai", "level": "easy"}]
    assert_problem(client.post("/v1/games", json={"seats": seats}), 401, "unauthenticated")
    assert_problem(client.post("/v1/games", json={"seats": seats}, headers={"X-API-Key": "x"}), 401,
                   "invalid_credentials")
    bad = [
        {"seats": seats[:1]},
        {"seats": seats * 3},
        {"seats": seats, "edition": "monopoly"},
        {"seats": seats, "extra": 1},
        {"seats": [{"kind": "robot"}, {"kind": "human"}]},
        {"seats": [{"kind": "ai", "level": "godlike"}, {"kind": "human"}]},
        {"seats": [{"kind": "human", "level": "easy"}, {"kind": "human"}]},
        {"seats": seats, "options": {"deck": "bogus"}},
        {"seats": seats, "options": {"no_such_option": True}},
        {"seats": seats, "visibility": "secret"},
        {"seats": seats, "tenant": "bad tenant"},
    ]
    for body in bad:
        assert_problem(client.post("/v1/games", json=body, headers=SERVICE), 400, "validation_failed")
    assert client.get("/v1/games", headers=SERVICE).get_json()["games"] == []


def test_unknown_route_and_method_are_problems(client: FlaskClient) -> None:
    assert_problem(client.get("/v1/nothing-here"), 404, "not_found")
    assert_problem(client.delete("/v1/games"), 405, "method_not_allowed")


UPGRADE = {"Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
           "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="}


@pytest.mark.parametrize("value", ["", " ", "-1", "1000000000", "²", "١٢", "7 ", "0x10"])
def test_a_last_event_id_that_is_no_version_is_a_400(client: FlaskClient, game: dict[str, Any], value: str) -> None:
    """Nine ASCII digits at most (the document's maximum): a blank header, another script's digits ("²" passes
    str.isdigit and fails int) or a number past the store's versions is refused, never read as no header or a 500."""
    response = client.get(f"/v1/games/{game['game_id']}/stream?timeout=0", headers={"Last-Event-ID": value})
    assert_problem(response, 400, "validation_failed")


@pytest.mark.parametrize(("change", "field"), [
    ({"Sec-WebSocket-Version": "8"}, "Sec-WebSocket-Version"),
    ({"Sec-WebSocket-Key": "short"}, "Sec-WebSocket-Key"),
    ({"Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ"}, "Sec-WebSocket-Key"),
])
def test_a_socket_handshake_with_a_bad_header_is_a_400_before_the_upgrade(
        client: FlaskClient, game: dict[str, Any], change: dict[str, str], field: str) -> None:
    response = client.get(f"/v1/games/{game['game_id']}/ws", headers={**UPGRADE, **change})
    assert field in assert_problem(response, 400, "validation_failed")["errors"]


@pytest.mark.parametrize("version", ["²", "1000000000", "-1"])
def test_a_socket_version_that_is_no_version_is_a_400(client: FlaskClient, game: dict[str, Any], version: str) -> None:
    response = client.get(f"/v1/games/{game['game_id']}/ws?version={version}", headers=UPGRADE)
    assert "version" in assert_problem(response, 400, "validation_failed")["errors"]


def test_a_version_past_the_store_s_columns_is_refused_at_the_edge(client: FlaskClient, game: dict[str, Any]) -> None:
    """On PostgreSQL a version above 2**31-1 used to reach the int4 column (400 from the database's error)."""
    for path in ("state?version=2147483648", "wait?version=2147483648&timeout=0",
                 "stream?version=2147483648&timeout=0"):
        assert "version" in assert_problem(client.get(f"/v1/games/{game['game_id']}/{path}", headers=ADMIN), 400,
                                           "validation_failed")["errors"], path
