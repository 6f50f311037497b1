"""AI seats: the outbox row written with the append, the service-key path, and the in-process bot."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

import torres_rules as tr
from torres_game.ai_turns import BackgroundDriver, Outcome, ai_command_id, play_turn
from torres_game.app import create_app
from torres_game.service import GameService

from .conftest import ADMIN, SERVICE, bearer, create_game, make_config

AI_FIRST = [{"kind": "ai", "level": "easy"}, {"kind": "human", "player_id": "p"}]


def test_due_ai_turn_is_recorded_and_played_with_the_service_key(client: FlaskClient, app: Flask) -> None:
    service: GameService = app.extensions["torres_game"]  # ai_driver="none": outbox only
    game = create_game(client, AI_FIRST)
    gid = game["game_id"]
    pending = [t for t in service.store.pending_ai_turns() if t.game_id == gid]
    assert [(t.seat, t.version) for t in pending] == [(0, 1)]
    legal = client.get(f"/v1/games/{gid}/legal-actions?seat=0", headers=SERVICE).get_json()
    assert legal["seat"] == 0 and legal["actions"]
    view = client.get(f"/v1/games/{gid}/view?seat=0", headers=SERVICE).get_json()
    assert view["seat"] == 0
    body = {"seat": 0, "action": legal["actions"][0], "expected_version": 1, "command_id": ai_command_id(gid, 1)}
    assert client.post(f"/v1/games/{gid}/actions", json=body, headers=SERVICE).status_code == 201
    assert not [t for t in service.store.pending_ai_turns() if t.game_id == gid]  # settled by the append
    # the human seat cannot be driven with the service key
    human = client.get(f"/v1/games/{gid}/legal-actions", headers=bearer(game["seats"][1]["token"])).get_json()
    body = {"seat": 1, "action": human["actions"][0], "expected_version": 2, "command_id": "h"}
    assert client.post(f"/v1/games/{gid}/actions", json=body, headers=SERVICE).status_code == 403


def test_play_turn_is_idempotent_and_ignores_stale_turns(client: FlaskClient, app: Flask) -> None:
    service: GameService = app.extensions["torres_game"]
    game = create_game(client, AI_FIRST)
    gid = game["game_id"]
    first, last = (lambda d: tr.legal_actions(d.state)[0]), (lambda d: tr.legal_actions(d.state)[-1])
    played = play_turn(service, gid, 0, 1, first)
    assert (played.outcome, played.actions) == (Outcome.PLAYED, 1)
    assert client.get(f"/v1/games/{gid}").get_json()["version"] == 2  # the AI's setup action; the human is to move
    assert play_turn(service, gid, 0, 1, last).outcome is Outcome.STALE  # stale: no-op
    assert play_turn(service, gid, 1, 2, first).outcome is Outcome.STALE  # a human seat
    assert client.get(f"/v1/games/{gid}").get_json()["version"] == 2
    assert not [t for t in service.store.pending_ai_turns() if t.game_id == gid]


@pytest.fixture
def bot_app(tmp_path: Path) -> Iterator[Flask]:
    application = create_app(make_config(f"sqlite:///{tmp_path / 'bot.sqlite3'}", ai_driver="thread"))
    yield application
    application.extensions["torres_game"].close()


def test_in_process_bot_plays_ai_seats_to_the_end(bot_app: Flask) -> None:
    client = bot_app.test_client()
    service: GameService = bot_app.extensions["torres_game"]
    assert isinstance(service.driver, BackgroundDriver)
    game = create_game(client, [{"kind": "ai", "level": "easy"}, {"kind": "human", "player_id": "p"},
                                {"kind": "ai", "level": "hard"}])
    gid, token = game["game_id"], game["seats"][1]["token"]
    rng = random.Random(21)
    deadline = time.monotonic() + 60
    n = 0
    while time.monotonic() < deadline:
        summary = client.get(f"/v1/games/{gid}").get_json()
        if summary["status"] == "over":
            break
        if summary["to_move"] != 1:  # an AI seat: wait for the bot
            client.get(f"/v1/games/{gid}/wait?version={summary['version']}&timeout=5")
            continue
        legal = client.get(f"/v1/games/{gid}/legal-actions", headers=bearer(token)).get_json()
        body = {"seat": 1, "action": rng.choice(legal["actions"]), "expected_version": legal["version"],
                "command_id": f"h{n}"}
        response = client.post(f"/v1/games/{gid}/actions", json=body, headers=bearer(token))
        assert response.status_code in (201, 409), response.get_json()
        n += 1
    assert client.get(f"/v1/games/{gid}").get_json()["status"] == "over"
    events = client.get(f"/v1/games/{gid}/events?limit=1000", headers=ADMIN).get_json()["events"]
    ai_moves = [e for e in events if e["command_id"].startswith("ai:") and e["type"] == "action_applied"]
    assert {e["payload"]["seat"] for e in ai_moves} == {0, 2}
    assert all(e["command_id"] == ai_command_id(gid, e["version"] - 1) for e in ai_moves)
    assert client.get(f"/v1/games/{gid}/verify").get_json()["ok"] is True
    assert not [t for t in service.store.pending_ai_turns() if t.game_id == gid]


def test_pending_turns_are_picked_up_at_start(tmp_path: Path) -> None:
    """A turn recorded by a process that died is played by the next one (the outbox's purpose)."""
    url = f"sqlite:///{tmp_path / 'restart.sqlite3'}"
    first = create_app(make_config(url, ai_driver="none"))
    game = create_game(first.test_client(), AI_FIRST)
    first.extensions["torres_game"].close()
    second = create_app(make_config(url, ai_driver="thread"))
    try:
        waited = second.test_client().get(f"/v1/games/{game['game_id']}/wait?version=1&timeout=10").get_json()
        assert waited["version"] == 2
    finally:
        second.extensions["torres_game"].close()
