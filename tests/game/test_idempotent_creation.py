"""`POST /v1/games` with an Idempotency-Key: a retried creation answers the original 201, tokens included, and
never makes a second game, on both backends and under concurrent retries."""

from __future__ import annotations

import threading
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from torres_game.app import create_app

from .conftest import ADMIN, SERVICE, bearer, make_config

BODY = {"seats": [{"kind": "human", "player_id": "p1"}, {"kind": "ai", "level": "easy"},
                  {"kind": "human", "player_id": "p2"}]}


def _create(client: FlaskClient, key: str, body: dict[str, Any] | None = None) -> Any:
    return client.post("/v1/games", json=body or BODY, headers={**SERVICE, "Idempotency-Key": key})


def _game_count(client: FlaskClient) -> int:
    """Every game in the store (the HTTP list is paged, and the PostgreSQL database is shared by the session)."""
    return len(client.application.extensions["torres_game"].store.list_games(limit=1_000_000))


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def any_client(request: pytest.FixtureRequest) -> FlaskClient:
    if request.param == "postgres":
        return request.getfixturevalue("pg_client")
    return request.getfixturevalue("client")


def test_a_retry_gets_the_original_201_and_no_second_game(any_client: FlaskClient) -> None:
    key = f"match-{uuid.uuid4()}"
    before = _game_count(any_client)
    first = _create(any_client, key)
    again = _create(any_client, key)
    assert first.status_code == again.status_code == 201
    assert "Idempotent-Replayed" not in first.headers and again.headers["Idempotent-Replayed"] == "true"
    assert again.get_json() == first.get_json()
    assert _game_count(any_client) == before + 1
    game = first.get_json()
    tokens = [seat.get("token") for seat in game["seats"]]
    assert tokens[0] and tokens[2] and tokens[1] is None and tokens[0] != tokens[2]
    # the replayed tokens are the game's: each one reads its own seat's view
    for seat in (0, 2):
        view = any_client.get(f"/v1/games/{game['game_id']}/view", headers=bearer(tokens[seat]))
        assert view.status_code == 200 and view.get_json()["seat"] == seat


def test_other_keys_and_no_key_make_new_games(any_client: FlaskClient) -> None:
    one, two = _create(any_client, f"a-{uuid.uuid4()}").get_json(), _create(any_client, f"b-{uuid.uuid4()}").get_json()
    plain = any_client.post("/v1/games", json=BODY, headers=SERVICE).get_json()
    assert len({one["game_id"], two["game_id"], plain["game_id"]}) == 3
    assert one["seats"][0]["token"] != two["seats"][0]["token"]


def test_the_same_key_with_another_body_is_409_and_changes_nothing(any_client: FlaskClient) -> None:
    key = f"reuse-{uuid.uuid4()}"
    game = _create(any_client, key).get_json()
    before = _game_count(any_client)
    other = {"seats": [{"kind": "human", "player_id": "p1"}, {"kind": "human", "player_id": "someone-else"}]}
    response = _create(any_client, key, other)
    assert response.status_code == 409
    assert response.mimetype == "application/problem+json"
    assert response.get_json()["code"] == "idempotency_key_reused"
    assert _game_count(any_client) == before
    events = any_client.get(f"/v1/games/{game['game_id']}/events", headers=ADMIN).get_json()["events"]
    assert [e["type"] for e in events] == ["game_created"]


@pytest.mark.parametrize("key", ["", "k" * 201])
def test_a_malformed_key_is_400(client: FlaskClient, key: str) -> None:
    before = _game_count(client)
    response = client.post("/v1/games", json=BODY, headers={**SERVICE, "Idempotency-Key": key})
    assert response.status_code == 400 and response.get_json()["code"] == "validation_failed"
    assert _game_count(client) == before


def test_the_key_needs_the_service_key(client: FlaskClient) -> None:
    response = client.post("/v1/games", json=BODY, headers={"Idempotency-Key": "k"})
    assert response.status_code == 401


def test_tokens_that_cannot_be_derived_again_are_refused_not_returned(tmp_path: Path) -> None:
    """A replay recomputes the tokens from the admin key; if that changed, it must not hand out wrong ones."""
    database = f"sqlite:///{tmp_path / 'keys.sqlite3'}"
    first_app = create_app(make_config(database))
    key = f"rotated-{uuid.uuid4()}"
    assert _create(first_app.test_client(), key).status_code == 201
    first_app.extensions["torres_game"].close()
    rotated = create_app(make_config(database, admin_key="another admin key"))
    try:
        response = _create(rotated.test_client(), key)
        assert response.status_code == 409 and "admin key" in response.get_json()["detail"]
    finally:
        rotated.extensions["torres_game"].close()


@pytest.mark.postgres
def test_concurrent_retries_create_one_game(pg_app: Flask) -> None:
    key = f"race-{uuid.uuid4()}"
    barrier = threading.Barrier(8)

    def create(_: int) -> tuple[int, dict[str, Any], bool]:
        local = pg_app.test_client()
        barrier.wait()
        response = _create(local, key)
        return response.status_code, response.get_json(), "Idempotent-Replayed" in response.headers

    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(create, range(8)))
    assert {status for status, _, _ in results} == {201}
    assert len({repr(body) for _, body, _ in results}) == 1
    assert sorted(replayed for _, _, replayed in results) == [False] + [True] * 7


@pytest.mark.parametrize("change", ["reissue", "revoke"])
def test_a_replay_after_a_reissue_or_revocation_is_refused_not_handed_dead_tokens(any_client: FlaskClient,
                                                                                  change: str) -> None:
    """The derived tokens of the original body are superseded, and the current ones are kept only as hashes: a
    replay answers 409 ``seat_tokens_reissued`` (the tenant reads the game and reissues) instead."""
    key = f"reissued-{uuid.uuid4()}"
    game = _create(any_client, key).get_json()
    assert _create(any_client, key).status_code == 201  # replayable until a token changes
    send = any_client.post if change == "reissue" else any_client.delete
    assert send(f"/v1/games/{game['game_id']}/seats/2/token", headers=SERVICE).status_code in (200, 201)
    again = _create(any_client, key)
    assert (again.status_code, again.get_json()["code"]) == (409, "seat_tokens_reissued")
    assert all(seat["token"] not in again.get_data(as_text=True) for seat in game["seats"] if "token" in seat)
    assert any_client.get(f"/v1/games/{game['game_id']}/view",
                          headers=bearer(game["seats"][0]["token"])).status_code == 200  # seat 0 untouched
