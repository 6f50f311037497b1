"""Portal data on games: the portal's own id for a game (unique per tenant: creating with it again
answers that game), labels to file it under, and display names for its seats -- over HTTP, on both backends."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from torres_game.app import create_app

from .conftest import SERVICE, create_game, make_config
from .tenant_helpers import two_tenants

SEATS = [{"kind": "human", "player_id": "ann", "display_name": "Ann (Köln)"},
         {"kind": "ai", "level": "easy", "display_name": "Robo"}]


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def api(request: pytest.FixtureRequest, tmp_path: Path) -> FlaskClient:
    if request.param == "sqlite":
        return FlaskClient(create_app(make_config(f"sqlite:///{tmp_path / 'g.sqlite3'}")))
    pg_client: FlaskClient = request.getfixturevalue("pg_client")
    return pg_client


def games(api: FlaskClient, **query: str) -> list[dict[str, Any]]:
    response = api.get("/v1/games", query_string={"limit": 500, **query}, headers=SERVICE)
    assert response.status_code == 200, response.get_json()
    return list(response.get_json()["games"])


def refused(response: Any, field: str) -> None:
    assert response.status_code == 400 and response.get_json()["code"] == "validation_failed", response.get_json()
    assert field in str(response.get_json()["errors"])


def test_a_creation_with_an_external_id_answers_the_same_game_again(api: FlaskClient, tmp_path: Path) -> None:
    external = f"match-{tmp_path.name}"
    body = {"seats": SEATS, "external_id": external, "labels": ["league", "round-1"]}
    first = api.post("/v1/games", json=body, headers=SERVICE)
    assert first.status_code == 201 and "Idempotent-Replayed" not in first.headers
    again = api.post("/v1/games", json=body, headers=SERVICE)
    assert again.status_code == 201 and again.headers["Idempotent-Replayed"] == "true"
    assert again.get_json() == first.get_json()  # the same game, the same seat tokens
    created = first.get_json()
    assert (created["external_id"], created["labels"]) == (external, ["league", "round-1"])
    assert [seat.get("display_name") for seat in created["seats"]] == ["Ann (Köln)", "Robo"]

    other = api.post("/v1/games", json={**body, "labels": ["cup"]}, headers=SERVICE)
    assert other.status_code == 409 and other.get_json()["code"] == "external_id_reused"
    assert [g["game_id"] for g in games(api, external_id=external)] == [created["game_id"]]  # nothing new

    # With an Idempotency-Key as well, the external id decides: the same game, whatever the key.
    keyed = api.post("/v1/games", json=body, headers={**SERVICE, "Idempotency-Key": f"k-{tmp_path.name}"})
    assert keyed.status_code == 201 and keyed.get_json() == created


def test_summaries_show_the_portal_data_and_lists_filter_by_it(api: FlaskClient, tmp_path: Path) -> None:
    label = f"cup-{tmp_path.name}"[:64]
    cup = create_game(api, SEATS, labels=[label, "final"], external_id=f"final-{tmp_path.name}")
    plain = create_game(api)
    summary = api.get(f"/v1/games/{cup['game_id']}", headers=SERVICE).get_json()
    assert (summary["external_id"], summary["labels"]) == (cup["external_id"], [label, "final"])
    assert summary["seats"][0]["display_name"] == "Ann (Köln)" and summary["seats"][1]["display_name"] == "Robo"
    bare = api.get(f"/v1/games/{plain['game_id']}", headers=SERVICE).get_json()
    assert (bare["external_id"], bare["labels"]) == (None, []) and "display_name" not in bare["seats"][0]
    assert [g["game_id"] for g in games(api, label=label)] == [cup["game_id"]]
    assert [g["game_id"] for g in games(api, label=label, status="over")] == []


@pytest.mark.parametrize(("body", "field"), [
    ({"labels": [f"l{n}" for n in range(17)]}, "labels"),
    ({"labels": ["same", "same"]}, "labels"),
    ({"labels": ["no spaces"]}, "labels"),
    ({"labels": ["x" * 65]}, "labels"),
    ({"external_id": "line\nbreak"}, "external_id"),
    ({"external_id": "x" * 201}, "external_id"),
    ({"seats": [{"kind": "human", "display_name": "x" * 65}, {"kind": "human"}]}, "seats"),
    ({"seats": [{"kind": "human", "display_name": "bell\u0007"}, {"kind": "human"}]}, "seats"),
    ({"seats": [{"kind": "ai", "display_name": "\u202eevil"}, {"kind": "human"}]}, "seats"),
])
def test_bad_portal_data_is_refused_and_creates_nothing(api: FlaskClient, body: dict[str, Any], field: str) -> None:
    before = len(games(api))
    refused(api.post("/v1/games", json={"seats": [{"kind": "human"}, {"kind": "human"}], **body},
                     headers=SERVICE), field)
    assert len(games(api)) == before


def test_an_external_id_is_each_tenants_own(tmp_path: Path) -> None:
    """Two portals may use the same id for their own games: each gets its own game, lists only its own, and
    neither can replay the other's creation (which would hand it the other's seat tokens)."""
    keys = two_tenants(tmp_path / "tenants.json")
    api = create_app(make_config(f"sqlite:///{tmp_path / 'g.sqlite3'}",
                                 tenants_file=str(tmp_path / "tenants.json"))).test_client()
    body = {"seats": [{"kind": "human"}, {"kind": "human"}], "external_id": "match-1", "labels": ["cup"]}
    alpha = api.post("/v1/games", json=body, headers={"X-API-Key": keys["a"]})
    beta = api.post("/v1/games", json=body, headers={"X-API-Key": keys["b"]})
    assert alpha.status_code == beta.status_code == 201 and "Idempotent-Replayed" not in beta.headers
    assert alpha.get_json()["game_id"] != beta.get_json()["game_id"]
    assert alpha.get_json()["seats"][0]["token"] != beta.get_json()["seats"][0]["token"]
    for key, game in ((keys["a"], alpha), (keys["b"], beta)):
        listed = api.get("/v1/games?external_id=match-1&label=cup", headers={"X-API-Key": key}).get_json()["games"]
        assert [g["game_id"] for g in listed] == [game.get_json()["game_id"]]


def test_an_unknown_query_parameter_on_a_list_is_a_400(api: FlaskClient) -> None:
    """``?player=bob`` (for ``?player_id=``) was ignored and answered every game of the tenant as if filtered;
    now each list refuses a parameter it does not know, naming it, and a known filter still filters."""
    game = create_game(api, seats=[{"kind": "human", "player_id": "alice"}, {"kind": "ai", "level": "easy"}])
    refused(api.get("/v1/games?player=bob", headers=SERVICE), "player")
    refused(api.get("/v1/games?player_id=bob&satus=active", headers=SERVICE), "satus")
    refused(api.get(f"/v1/games/{game['game_id']}/events?after=0&limt=5", headers=SERVICE), "limt")
    refused(api.get("/v1/notifications?after=0&cursor=1", headers=SERVICE), "cursor")
    refused(api.get("/v1/webhooks/deliveries?since=0", headers=SERVICE), "since")
    offset = api.get("/v1/games?offset=10", headers=SERVICE).get_json()["errors"]["offset"]
    assert any("next_cursor" in message for message in offset), offset  # told what to send instead
    assert games(api, player_id="bob") == []
    assert [g["game_id"] for g in games(api, player_id="alice")] == [game["game_id"]]
