"""Complete games through HTTP, log replay, hidden information, snapshots and past states."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

import torres_rules as tr
from torres_game.service import GameService
from torres_online import events as ev
from torres_online import lifecycle as lc
from torres_online.lifecycle import Lifecycle

from .conftest import ADMIN, API_KEY, bearer, create_game, play_one

HUMANS = [{"kind": "human", "player_id": f"p{i}"} for i in range(4)]


def _full(client: FlaskClient, gid: str) -> dict[str, Any]:
    return client.get(f"/v1/games/{gid}/state", headers=ADMIN).get_json()


def _assert_nothing_hidden_leaks(client: FlaskClient, game: dict[str, Any], position: dict[str, Any]) -> int:
    """Check every seat's and the spectator's view and events against the full position.

    Returns how many keep_card events the readers saw redacted (so the test knows it was not vacuous).
    """
    gid, players = game["game_id"], len(game["seats"])
    secret_lists = [json.dumps(d) for d in (position.get("decks") or []) if len(d) >= 2]
    if position.get("deck") and len(position["deck"]) >= 2:
        secret_lists.append(json.dumps(position["deck"]))
    redacted = 0
    for seat in [*range(players), None]:
        headers = bearer(game["seats"][seat]["token"]) if seat is not None else {}
        view = client.get(f"/v1/games/{gid}/view", headers=headers).get_json()["view"]
        assert not {"hands", "decks", "deck"} & set(view)
        assert view["hand"] == (position["hands"][seat] if seat is not None else None)
        assert view["hand_sizes"] == [len(h) for h in position["hands"]]
        if view.get("seen") is not None:
            assert seat == position["to_move"]
        text = json.dumps(view)
        assert not any(secret in text for secret in secret_lists)
        log = client.get(f"/v1/games/{gid}/events?limit=1000", headers=headers).get_json()["events"]
        for event in log:
            payload = event["payload"]
            assert "seed" not in payload and "salt" not in payload
            action = payload.get("action", {})
            assert "order" not in action
            if action.get("type") == "keep_card":
                assert payload["redacted"] is True
                if payload["seat"] != seat:
                    assert action == {"type": "keep_card"}
                    redacted += 1
                else:
                    assert "card" in action  # the owner sees the card it kept
        assert not any(secret in json.dumps(log) for secret in secret_lists)
    return redacted


def _check_castles_and_scoring(client: FlaskClient, game: dict[str, Any], full: dict[str, Any]) -> list[dict[str, Any]]:
    """`/state` carries the engine's castles, and its scoring exactly at the version that ended a phase (a
    `game_ended` after the last one carries none); the spectator's `/state` and `/view` carry the same (public
    facts). Returns the scoring, if any, as a list."""
    state = tr.from_position(full["position"])
    gid, version = game["game_id"], full["version"]
    assert full["castles"] == tr.castles_of(state)
    if full["position"]["stage"] not in ("move_king", "over"):
        assert full["scoring"] is None
        return []
    before = client.get(f"/v1/games/{gid}/state?version={version - 1}", headers=ADMIN).get_json()
    assert full["scoring"] == tr.scored_between(tr.from_position(before["position"]), state)
    if full["scoring"] is None:
        return []
    spectator = client.get(f"/v1/games/{gid}/state?version={version}").get_json()
    assert (spectator["castles"], spectator["scoring"]) == (full["castles"], full["scoring"])
    view = client.get(f"/v1/games/{gid}/view").get_json()
    assert view["castles"] == full["castles"]  # (a game_ended may follow: the same board)
    assert client.get(f"/v1/games/{gid}/state?version={version - 1}").get_json()["scoring"] is None
    return [full["scoring"]]


@pytest.mark.parametrize(("players", "edition", "seed"), [(2, "rio_grande", 11), (3, "ravensburger", 12)])
def test_random_game_through_http_reaches_the_end_and_replays(
    client: FlaskClient, app: Flask, players: int, edition: str, seed: int
) -> None:
    play_full_game(client, app, players, edition, seed)


@pytest.mark.postgres
def test_random_four_player_game_on_postgres(pg_app: Flask) -> None:
    play_full_game(pg_app.test_client(), pg_app, 4, "yucata", 13)


def play_full_game(client: FlaskClient, app: Flask, players: int, edition: str, seed: int) -> None:
    """All seats driven by random legal actions through HTTP, then the log replayed and checked."""
    game = create_game(client, HUMANS[:players], edition=edition)
    gid = game["game_id"]
    rng = random.Random(seed)
    positions = {1: _full(client, gid)["position"]}
    redacted_seen = 0
    scorings: list[dict[str, Any]] = []
    n = 0
    while True:
        summary = client.get(f"/v1/games/{gid}").get_json()
        if summary["status"] == "over":
            break
        seat = summary["to_move"]
        token = game["seats"][seat]["token"]
        legal = client.get(f"/v1/games/{gid}/legal-actions", headers=bearer(token)).get_json()
        assert legal["actions"], "the seat to move always has a legal action"
        body = {"seat": seat, "action": rng.choice(legal["actions"]), "expected_version": legal["version"],
                "command_id": f"c{n}"}
        result = client.post(f"/v1/games/{gid}/actions", json=body, headers=bearer(token))
        assert result.status_code == 201, result.get_json()
        version = result.get_json()["version"]
        full = _full(client, gid)
        positions[version] = full["position"]
        acted = result.get_json()["events"][0]["version"]  # the last action's game_ended follows it at once
        at = full if full["version"] == acted else (
            client.get(f"/v1/games/{gid}/state?version={acted}", headers=ADMIN).get_json())
        scorings += _check_castles_and_scoring(client, game, at)
        stage = full["position"]["stage"]
        if stage != "over" and (n % 7 == 0 or stage == "keep_card"):
            redacted_seen += _assert_nothing_hidden_leaks(client, game, full["position"])
        n += 1
    assert n > 50
    assert [scoring["phase"] for scoring in scorings] == [1, 2, 3]
    if edition in ("rio_grande", "yucata"):
        assert redacted_seen > 0, "no keep_card happened: the hidden-information check was vacuous"

    # The end: game_ended reveals the seed, which matches the commitment made at creation.
    log = client.get(f"/v1/games/{gid}/events?limit=1000").get_json()  # no credentials: the game is over
    assert log["redacted"] is False
    ended = log["events"][-1]
    assert ended["type"] == "game_ended" and ended["payload"]["winner"] == summary["winner"]
    assert ended["payload"]["scores"] == summary["scores"]
    seed_revealed = int(ended["payload"]["seed"])
    assert ev.seed_commitment(seed_revealed) == game["seed_commitment"]

    # Replaying the log independently (rules package only) reproduces every intermediate state.
    state = None
    for event in log["events"]:
        if event["type"] == "game_created":
            state = ev.initial_state(event["payload"], seed_revealed)
        elif event["type"] == "action_applied":
            state = tr.apply(state, event["payload"]["action"])
        if event["version"] in positions:
            assert state is not None and state.to_position() == positions[event["version"]], event["version"]
    assert state is not None and tr.is_over(state)

    # ... and so does the service's own state-at-version (snapshots + tail folds), with a cold cache.
    service: GameService = app.extensions["torres_game"]
    cold = GameService(service.store, service.config, service.driver)
    for version in [*sorted(positions)[::max(1, len(positions) // 25)], max(positions)]:
        assert cold.games.state_at(gid, version)[1].to_position() == positions[version]
    assert client.get(f"/v1/games/{gid}/verify").get_json()["ok"] is True
    after_end = client.get(f"/v1/games/{gid}/state?version=2").get_json()  # public once over
    assert after_end["position"] == positions[2]
    over = client.get(f"/v1/games/{gid}/legal-actions", headers=bearer(game["seats"][0]["token"])).get_json()
    assert over["actions"] == []
    body = {"seat": 0, "action": {"type": "end_turn"}, "expected_version": max(positions), "command_id": "late"}
    late = client.post(f"/v1/games/{gid}/actions", json=body, headers=bearer(game["seats"][0]["token"]))
    assert late.status_code == 409 and late.get_json()["code"] == "game_over"
    # listed among the finished games (the database may hold other tests' games, finished later)
    over_games = client.get("/v1/games?status=over&limit=200", headers=ADMIN).get_json()["games"]
    assert gid in [g["game_id"] for g in over_games]
    assert gid not in [g["game_id"] for g in client.get("/v1/games?status=active&limit=200",
                                                         headers=ADMIN).get_json()["games"]]
    # a stream of a finished game ends with `game-over`, never with the stream's own `timeout`
    stream = client.get(f"/v1/games/{gid}/stream?version={max(positions) - 1}&timeout=30").get_data(as_text=True)
    last = stream.rstrip().rsplit("\n\n", 1)[-1]
    assert last.startswith("event: game-over\n") and "event: timeout" not in stream
    # matchmaking reads finished games from the notification log, page by page as its consumer does (the log
    # holds every game of the test session's database)
    finished, after = [], 0
    while page := client.get(f"/v1/notifications?after={after}&limit=1000",
                             headers={"X-API-Key": API_KEY}).get_json()["notifications"]:
        finished += [n for n in page if n["type"] == "game_ended" and n["game_id"] == gid]
        after = page[-1]["position"]
    assert len(finished) == 1 and finished[0]["payload"]["winner"] == summary["winner"]


def test_snapshot_plus_tail_equals_full_fold(client: FlaskClient, app: Flask) -> None:
    service: GameService = app.extensions["torres_game"]
    assert service.config.snapshot_every == 20
    game = create_game(client, HUMANS[:2])
    gid = game["game_id"]
    rng = random.Random(8)
    for n in range(70):
        play_one(client, game, rng, n)
    store = service.store
    snapshots = [store.latest_snapshot(gid, at_most=v) for v in (20, 40, 60)]
    assert [s.version for s in snapshots if s] == [20, 40, 60]
    seed = store.get_secret(gid).seed  # type: ignore[union-attr]
    log = store.read(gid)
    full = lc.fold(log, seed)
    assert full is not None
    for snapshot in snapshots:
        assert snapshot is not None
        assert snapshot.lifecycle is not None
        base = (tr.from_position(snapshot.position), Lifecycle.from_json(snapshot.lifecycle))
        from_snapshot = lc.fold_game(store.read(gid, after=snapshot.version), seed, base)
        assert from_snapshot is not None and from_snapshot[0].to_position() == full.to_position()
        at_snapshot = lc.fold(store.read(gid, up_to=snapshot.version), seed)
        assert at_snapshot is not None and at_snapshot.to_position() == snapshot.position
    cold = GameService(store, service.config, service.driver)
    assert cold.games.state_at(gid)[1].to_position() == full.to_position()
    assert cold.games.state_at(gid, 45)[1].to_position() == lc.fold(log[:45], seed).to_position()  # type: ignore[union-attr]
