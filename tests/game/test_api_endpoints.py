"""Every endpoint's success path (and its read-side auth errors), on the embedded SQLite backend."""

from __future__ import annotations

import json
import random
import shutil
import socket
import threading
import time
from pathlib import Path

from flask import Flask
from flask.testing import FlaskClient

import torres_rules as tr
from torres_game.app import create_app

from .conftest import ADMIN, MIGRATIONS, SERVICE, bearer, create_game, make_config, play_one, played_game
from .sse import parse_sse


def test_create_game_returns_tokens_for_humans_only(client: FlaskClient) -> None:
    game = create_game(client, [{"kind": "human", "player_id": "p1"}, {"kind": "ai", "level": "hard"},
                                {"kind": "human", "player_id": "p3"}], edition="yucata")
    assert game["version"] == 1 and len(game["seed_commitment"]) == 64
    seats = game["seats"]
    assert [s["seat"] for s in seats] == [0, 1, 2]
    assert seats[0]["kind"] == "human" and seats[0]["player_id"] == "p1" and len(seats[0]["token"]) >= 24
    assert seats[1] == {"seat": 1, "kind": "ai", "level": "hard"}
    assert seats[0]["token"] != seats[2]["token"]


def test_summary_and_list_never_show_tokens(client: FlaskClient) -> None:
    a = create_game(client)
    b = create_game(client, master=True)
    summary = client.get(f"/v1/games/{a['game_id']}").get_json()
    assert {k: summary[k] for k in ("game_id", "status", "version", "edition", "master", "stage", "to_move")} == {
        "game_id": a["game_id"], "status": "active", "version": 1, "edition": "rio_grande", "master": False,
        "stage": "setup", "to_move": 0}
    assert summary["scores"] == [0, 0] and summary["winner"] is None and summary["created_at"]
    assert summary["phase"] == 1 and summary["round"] is not None
    assert summary["visibility"] == "unlisted" == a["visibility"]  # the default (store.base.DEFAULT_VISIBILITY)
    text = json.dumps(client.get("/v1/games", headers=SERVICE).get_json())
    for game in (a, b):
        for seat in game["seats"]:
            assert seat["token"] not in text
    listed = client.get("/v1/games?status=active&limit=1", headers=SERVICE).get_json()
    assert len(listed["games"]) == 1 and listed["games"][0]["game_id"] == b["game_id"]  # newest first
    after = client.get(f"/v1/games?status=active&limit=1&cursor={listed['next_cursor']}", headers=SERVICE).get_json()
    assert [g["game_id"] for g in after["games"]] == [a["game_id"]]
    assert client.get("/v1/games?status=over", headers=SERVICE).get_json() == {"games": [], "limit": 50,
                                                                                "next_cursor": None}
    assert client.get("/v1/games?status=weird", headers=SERVICE).status_code == 400
    assert client.get("/v1/games?offset=1", headers=SERVICE).status_code == 400  # replaced by cursors
    assert client.get("/v1/games?cursor=bm90LWEtY3Vyc29y", headers=SERVICE).status_code == 400
    assert client.get("/v1/games").status_code == 401  # lists are never anonymous
    everyone = {g["game_id"] for g in client.get("/v1/games?limit=500", headers=ADMIN).get_json()["games"]}
    assert {a["game_id"], b["game_id"]} <= everyone  # the operator lists every tenant's games


def test_view_for_seat_and_spectator(client: FlaskClient) -> None:
    game = create_game(client)
    gid = game["game_id"]
    own = client.get(f"/v1/games/{gid}/view", headers=bearer(game["seats"][1]["token"])).get_json()
    assert own["version"] == 1 and own["seat"] == 1 and own["view"]["seat"] == 1
    assert isinstance(own["view"]["hand"], list)
    spectator = client.get(f"/v1/games/{gid}/view").get_json()
    assert spectator["seat"] is None and spectator["view"]["hand"] is None and spectator["version"] == 1
    full = tr.from_position(client.get(f"/v1/games/{gid}/state", headers=ADMIN).get_json()["position"])
    assert own["castles"] == spectator["castles"] == tr.castles_of(full)  # public: the same for every reader
    assert client.get(f"/v1/games/{gid}/view", headers=bearer("nope")).status_code == 403
    assert client.get(f"/v1/games/{gid}/view?seat=0", headers=SERVICE).status_code == 403  # human seat


def test_legal_actions(client: FlaskClient) -> None:
    game = create_game(client)
    gid = game["game_id"]
    mine = client.get(f"/v1/games/{gid}/legal-actions", headers=bearer(game["seats"][0]["token"])).get_json()
    assert mine["version"] == 1 and mine["seat"] == 0
    assert {a["type"] for a in mine["actions"]} == {"place_start_knight"}
    theirs = client.get(f"/v1/games/{gid}/legal-actions", headers=bearer(game["seats"][1]["token"])).get_json()
    assert theirs == {"version": 1, "seat": 1, "actions": []}
    assert client.get(f"/v1/games/{gid}/legal-actions").status_code == 401
    assert client.get(f"/v1/games/{gid}/legal-actions", headers=bearer("x")).status_code == 403


def test_events_are_paged(client: FlaskClient) -> None:
    game = played_game(client, seed=3, moves=6)
    gid = game["game_id"]
    page = client.get(f"/v1/games/{gid}/events?after=0&limit=3").get_json()
    assert [e["version"] for e in page["events"]] == [1, 2, 3] and page["next_after"] == 3
    assert page["version"] == 7 and page["redacted"] is True
    rest = client.get(f"/v1/games/{gid}/events?after=3").get_json()
    assert [e["version"] for e in rest["events"]] == [4, 5, 6, 7]
    first = page["events"][0]
    assert first["type"] == "game_created" and first["payload"]["seed_commitment"] == game["seed_commitment"]
    assert set(first) == {"position", "game_id", "version", "type", "payload", "schema_version", "created_at",
                          "command_id", "prev_hash", "hash", "text"}
    assert first["text"] == "game created: 2 players, rio_grande edition"
    assert page["events"][1]["text"] == tr.action_text(page["events"][1]["payload"]["action"])
    assert "seed" not in first["payload"]
    full = client.get(f"/v1/games/{gid}/events", headers=ADMIN).get_json()
    assert full["redacted"] is False
    assert client.get(f"/v1/games/{gid}/events", headers={"X-Admin-Key": "wrong"}).status_code == 403


def test_state_at_version(client: FlaskClient) -> None:
    game = played_game(client, seed=4, moves=4)
    gid = game["game_id"]
    at2 = client.get(f"/v1/games/{gid}/state?version=2", headers=ADMIN).get_json()
    assert at2["version"] == 2 and len(at2["position"]["knights"]) == 1
    now = client.get(f"/v1/games/{gid}/state", headers=ADMIN).get_json()
    assert now["version"] == 5 and "decks" in now["position"]
    seat_view = client.get(f"/v1/games/{gid}/state?version=3", headers=bearer(game["seats"][0]["token"])).get_json()
    assert seat_view["version"] == 3 and seat_view["view"]["seat"] == 0 and "position" not in seat_view
    assert "decks" not in seat_view["view"]
    spectator = client.get(f"/v1/games/{gid}/state?version=2").get_json()  # before the end: public facts only
    assert spectator["version"] == 2 and spectator["view"]["seat"] is None and spectator["view"]["hand"] is None
    assert "position" not in spectator and "decks" not in spectator["view"]
    assert client.get(f"/v1/games/{gid}/state?version=99", headers=ADMIN).status_code == 404
    assert client.get(f"/v1/games/{gid}/state?version=0", headers=ADMIN).status_code == 400


def test_verify_ok(client: FlaskClient) -> None:
    game = create_game(client)
    play_one(client, game, random.Random(1), 0)
    report = client.get(f"/v1/games/{game['game_id']}/verify").get_json()
    assert report == {"game_id": game["game_id"], "ok": True, "events": 2, "version": 2,
                      "first_inconsistency": None}


def test_long_poll_wait(client: FlaskClient, app: Flask) -> None:
    game = create_game(client)
    gid = game["game_id"]
    assert client.get(f"/v1/games/{gid}/wait?version=0").get_json() == {"game_id": gid, "version": 1, "changed": True}
    started = time.monotonic()
    timed_out = client.get(f"/v1/games/{gid}/wait?version=1&timeout=0.3").get_json()
    assert timed_out["changed"] is False and time.monotonic() - started >= 0.25
    assert client.get(f"/v1/games/{gid}/wait").status_code == 400  # version is required

    def later() -> None:
        time.sleep(0.3)
        play_one(app.test_client(), game, random.Random(2), 0)

    thread = threading.Thread(target=later)
    thread.start()
    started = time.monotonic()
    woke = client.get(f"/v1/games/{gid}/wait?version=1&timeout=10").get_json()
    thread.join()
    assert woke == {"game_id": gid, "version": 2, "changed": True}
    assert time.monotonic() - started < 5


def test_server_sent_events(client: FlaskClient, app: Flask) -> None:
    game = create_game(client)
    gid = game["game_id"]
    thread = threading.Thread(target=lambda: (time.sleep(0.2), play_one(app.test_client(), game, random.Random(2), 0)))
    thread.start()
    response = client.get(f"/v1/games/{gid}/stream?version=0&timeout=1")
    text = response.get_data(as_text=True)
    thread.join()
    assert response.mimetype == "text/event-stream"
    assert text.startswith(": connected\n")  # sent at once, before any change
    events = parse_sse(text)
    assert [(e["event"], e["id"], e["data"]["version"]) for e in events] == [
        ("version", "1", 1), ("version", "2", 2), ("timeout", None, 2)]  # a timeout is not a game over


def test_notifications_need_the_service_key(client: FlaskClient) -> None:
    game = create_game(client)
    play_one(client, game, random.Random(2), 0)
    assert client.get("/v1/notifications").status_code == 401
    assert client.get("/v1/notifications", headers={"X-API-Key": "wrong"}).status_code == 401
    log = client.get("/v1/notifications?after=0&limit=10", headers=SERVICE).get_json()
    assert [(n["game_id"], n["version"], n["type"]) for n in log["notifications"]] == [
        (game["game_id"], 1, "game_created"), (game["game_id"], 2, "action_applied")]
    assert log["next_after"] == log["notifications"][-1]["position"]
    assert client.get(f"/v1/notifications?after={log['next_after']}", headers=SERVICE).get_json()[
        "notifications"] == []
    assert client.get("/v1/notifications", headers=ADMIN).status_code == 200


def test_health_readiness_and_openapi(client: FlaskClient) -> None:
    assert client.get("/healthz").get_json() == {"status": "ok"}
    ready = client.get("/readyz").get_json()
    every = sorted(int(path.name[:4]) for path in (MIGRATIONS / "sqlite").glob("*.sql"))
    assert every[:6] == [1, 2, 3, 4, 5, 6]
    assert ready == {"status": "ready", "backend": "sqlite", "migrations": every}
    spec = client.get("/openapi.json").get_json()
    assert spec["openapi"].startswith("3.")
    for path in ("/v1/games", "/v1/games/{game_id}/actions", "/v1/games/{game_id}/view",
                 "/v1/games/{game_id}/legal-actions", "/v1/games/{game_id}/events", "/v1/games/{game_id}/state",
                 "/v1/games/{game_id}/verify", "/v1/games/{game_id}/wait", "/v1/games/{game_id}/stream",
                 "/v1/notifications", "/healthz", "/readyz"):
        assert path in spec["paths"], path
    post = spec["paths"]["/v1/games/{game_id}/actions"]["post"]
    assert {"201", "400", "401", "403", "404", "409", "422"} <= set(post["responses"])
    assert set(spec["components"]["securitySchemes"]) == {"seatToken", "apiKey", "adminKey", "streamTicket"}


def test_readyz_fails_while_a_migration_is_pending(tmp_path: Path) -> None:
    migrations = tmp_path / "migrations"
    shutil.copytree(MIGRATIONS, migrations)
    application = create_app(make_config(f"sqlite:///{tmp_path / 'r.sqlite3'}", migrations_dir=migrations))
    try:
        later = len(list((migrations / "sqlite").glob("*.sql"))) + 1
        (migrations / "sqlite" / f"{later:04d}_later.sql").write_text("CREATE TABLE later (x INTEGER);\n")
        response = application.test_client().get("/readyz")
        assert response.status_code == 503 and response.get_json()["pending"] == [later]
        application.extensions["torres_game"].store.migrate()
        assert application.test_client().get("/readyz").status_code == 200
    finally:
        application.extensions["torres_game"].close()



def test_action_201_body_carries_the_seats_next_legal_actions(client: FlaskClient) -> None:
    game = create_game(client)
    gid = game["game_id"]
    rng = random.Random(9)
    seen_same_seat = seen_other = 0
    for n in range(30):
        token = game["seats"][client.get(f"/v1/games/{gid}").get_json()["to_move"]]["token"]
        result = play_one(client, game, rng, n)
        after = client.get(f"/v1/games/{gid}/legal-actions", headers=bearer(token)).get_json()
        assert result["legal_actions"] == after["actions"] and result["version"] == after["version"]
        seen_same_seat += bool(after["actions"])
        seen_other += not after["actions"]
    assert seen_same_seat and seen_other


def test_readyz_fails_when_the_database_is_unreachable(tmp_path: Path) -> None:
    from torres_game.store import PostgresEventStore

    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    store = PostgresEventStore(f"postgresql://postgres@127.0.0.1:{port}/none?connect_timeout=1", min_size=0,
                               max_size=1, migrations_dir=MIGRATIONS)
    application = create_app(make_config("postgresql://unused", auto_migrate=False), store=store)
    try:
        response = application.test_client().get("/readyz")
        assert response.status_code == 503 and response.get_json()["code"] == "not_ready"
        assert application.test_client().get("/healthz").status_code == 200
    finally:
        application.extensions["torres_game"].close()
