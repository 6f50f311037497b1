"""Resign, abandon, undo within a turn, and the public card history, through the HTTP API."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

import torres_rules as tr
from torres_game.service import GameService
from torres_online import lifecycle as lc
from torres_online.lifecycle import CLOSES_UNDO, ENDS_TURN

from .conftest import ADMIN, SERVICE, bearer
from .online_helpers import act, create, drive, log

STAGES: dict[str, Callable[[tr.State], bool]] = {
    "setup": lambda s: s.stage == "setup",
    "turn": lambda s: s.stage == "turn" and s.ap_spent > 0,
    "keep_card": lambda s: s.stage == "keep_card",
    "move_king": lambda s: s.stage == "move_king",
}


def svc_of(app: Flask) -> GameService:
    return app.extensions["torres_game"]


def resign(client: FlaskClient, game: dict[str, Any], seat: int, token_seat: int | None = None) -> Any:
    token = game["seats"][seat if token_seat is None else token_seat]["token"]
    return client.post(f"/v1/games/{game['game_id']}/resign", json={"seat": seat}, headers=bearer(token))


# -- resign ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("stage", list(STAGES))
@pytest.mark.parametrize("who", ["to_move", "other"])
def test_resign_at_every_stage(app: Flask, client: FlaskClient, stage: str, who: str) -> None:
    svc = svc_of(app)
    game = create(client, players=3)
    gid = game["game_id"]
    drive(svc, game, random.Random(7), STAGES[stage], prefer="buy_card" if stage == "keep_card" else None)
    to_move = svc.games.current(gid).to_move
    assert to_move is not None
    seat = to_move if who == "to_move" else (to_move + 1) % 3
    assert resign(client, game, seat, token_seat=(seat + 1) % 3).status_code == 403  # another seat's token

    response = resign(client, game, seat)
    assert response.status_code == 201, response.get_json()
    body = response.get_json()
    assert body["status"] == "active" and body["events"][0]["type"] == "resigned"
    folded = svc.games.current(gid)
    assert folded.life.forfeited == (seat,) and folded.to_move != seat  # it passed at once if it was to move
    again = resign(client, game, seat)
    assert again.status_code == 201 and again.headers["Idempotent-Replayed"] == "true" and again.get_json() == body
    view = client.get(f"/v1/games/{gid}/view").get_json()["lifecycle"]
    assert view["forfeited"] == [seat]

    # A second seat leaves: one seat is left, the game ends, the two who left rank last.
    second = (seat + 1) % 3
    ended = resign(client, game, second).get_json()
    assert ended["status"] == "over" and [e["type"] for e in ended["events"]][-1] == "game_ended"
    result = log(svc, game)[-1].payload
    stayed = 3 - seat - second
    assert result["reason"] == "forfeit" and result["winner"] == stayed and result["ranks"][stayed] == 0
    assert result["ranks"][seat] == result["ranks"][second] == 1 and result["forfeited"] == sorted([seat, second])
    assert result["rated"] is (stage != "setup")  # a game ended before anybody moved is unrated
    assert client.get(f"/v1/games/{gid}").get_json()["status"] == "over"
    late = resign(client, game, stayed)
    assert late.status_code == 409 and late.get_json()["code"] == "game_over"
    assert client.get(f"/v1/games/{gid}/verify").get_json()["ok"]


def test_a_resigned_seat_cannot_act_and_the_seed_stays_secret(client: FlaskClient, app: Flask) -> None:
    svc = svc_of(app)
    game = create(client, players=3)
    gid = game["game_id"]
    drive(svc, game, random.Random(2), STAGES["turn"])
    seat = (svc.games.current(gid).to_move + 1) % 3  # type: ignore[operator]
    resign(client, game, seat)
    folded = svc.games.current(gid)
    response = client.post(f"/v1/games/{gid}/actions", headers=bearer(game["seats"][seat]["token"]), json={
        "seat": seat, "action": {"type": "end_turn"}, "expected_version": folded.version, "command_id": "x"})
    assert response.status_code == 409 and response.get_json()["code"] == "seat_forfeited"
    events = client.get(f"/v1/games/{gid}/events").get_json()["events"]
    assert all("seed" not in e["payload"] for e in events)  # the game goes on: nothing revealed


# -- abandon --------------------------------------------------------------------------------------------

def test_abandon_before_any_turn_is_unrated_and_answers_retries(client: FlaskClient, app: Flask) -> None:
    game = create(client)
    gid = game["game_id"]
    url = f"/v1/games/{gid}/abandon"
    assert client.post(url, json={"reason": "nobody came"}).status_code == 401
    assert client.post(url, json={"reason": "nobody came"}, headers={"X-API-Key": "wrong"}).status_code == 401
    bad = client.post(url, json={}, headers=SERVICE)
    assert bad.status_code == 400 and bad.content_type == "application/problem+json"
    assert client.post(url, json={"reason": "x", "extra": 1}, headers=SERVICE).status_code == 400
    assert client.post("/v1/games/nope/abandon", json={"reason": "x"}, headers=SERVICE).status_code == 404
    assert client.get(f"/v1/games/{gid}").get_json()["status"] == "active"  # nothing changed so far

    response = client.post(url, json={"reason": "nobody came"}, headers=SERVICE)
    assert response.status_code == 201
    body = response.get_json()
    assert [e["type"] for e in body["events"]] == ["abandoned", "game_ended"] and body["status"] == "over"
    assert body["events"][0]["payload"] == {"reason": "nobody came"}
    result = body["events"][1]["payload"]
    assert result["reason"] == "abandoned" and result["rated"] is False and "seed" in result
    again = client.post(url, json={"reason": "nobody came"}, headers=SERVICE)
    assert again.status_code == 201 and again.headers["Idempotent-Replayed"] == "true" and again.get_json() == body
    assert client.get(f"/v1/games/{gid}/verify").get_json()["ok"]


def test_abandon_mid_game_is_rated_by_score_and_a_finished_game_refuses(client: FlaskClient, app: Flask) -> None:
    svc = svc_of(app)
    game = create(client)
    drive(svc, game, random.Random(4), lambda s: s.stage == "turn" and s.round == 3)
    body = client.post(f"/v1/games/{game['game_id']}/abandon", json={"reason": "server move"},
                       headers=SERVICE).get_json()
    result = body["events"][-1]["payload"]
    scores = result["scores"]
    assert result["rated"] is True and result["forfeited"] == []
    assert result["ranks"] == [int(scores[0] < scores[1]), int(scores[1] < scores[0])] or scores[0] == scores[1]
    other = create(client)
    resign(client, other, 0)
    late = client.post(f"/v1/games/{other['game_id']}/abandon", json={"reason": "late"}, headers=SERVICE)
    assert late.status_code == 409 and late.get_json()["code"] == "game_over"


# -- undo -----------------------------------------------------------------------------------------------

def _undo(client: FlaskClient, game: dict[str, Any], seat: int, version: int, command_id: str,
          token_seat: int | None = None) -> Any:
    token = game["seats"][seat if token_seat is None else token_seat]["token"]
    return client.post(f"/v1/games/{game['game_id']}/undo", headers=bearer(token),
                       json={"seat": seat, "expected_version": version, "command_id": command_id})


@pytest.mark.parametrize("deck", ["personal", "common"])
def test_undo_of_every_action_kind_restores_the_state_and_reveals_nothing(
    client: FlaskClient, app: Flask, deck: str,
) -> None:
    """A whole random game; after each action the mover tries to take it back. It may exactly when the action
    revealed nothing and did not end its turn; then the state (and every other seat's view) is the one before,
    and the action is played again."""
    svc = svc_of(app)
    game = create(client, players=3, options={"deck": deck})
    gid = game["game_id"]
    rng = random.Random(11)
    undone: set[str] = set()
    refused: set[str] = set()
    while not svc.games.current(gid).over:
        before = svc.games.current(gid)
        seat = before.to_move
        assert seat is not None
        legal = tr.legal_actions(before.state)
        cards = [a for a in legal if a["type"] in ("buy_card", "play_card")]
        action = rng.choice(cards if cards and rng.random() < 0.3 else legal)
        views = {s: tr.view(before.state, s) for s in (None, 0, 1, 2)}
        act(svc, game, action)
        after = svc.games.current(gid)
        response = _undo(client, game, seat, after.version, f"u{after.version}")
        may = action["type"] not in CLOSES_UNDO | ENDS_TURN  # the AP actions that reveal nothing
        if response.status_code == 201:
            assert may, action
            undone.add(action["type"])
            restored = svc.games.current(gid).state
            assert restored.to_position() == before.state.to_position()
            assert all(tr.view(restored, s) == views[s] for s in views)  # nobody learnt anything new
            assert response.get_json()["legal_actions"] == legal
            act(svc, game, action, tag="again")
        else:
            body = response.get_json()
            assert not may, (action, body)
            expected = "not_your_turn" if after.to_move != seat else "undo_unavailable"
            if after.over:
                expected = "game_over"
            assert body["code"] == expected, (action, body)
            refused.add(action["type"])
    assert {"place_knight", "move_knight", "build"} <= undone
    assert {"buy_card", "play_card", "end_turn", "place_start_knight"} <= refused
    assert client.get(f"/v1/games/{gid}/verify").get_json()["ok"]


def test_undo_goes_back_one_action_at_a_time_and_closes_at_a_draw(client: FlaskClient, app: Flask) -> None:
    svc = svc_of(app)
    game = create(client)
    gid = game["game_id"]
    rng = random.Random(5)
    drive(svc, game, rng, lambda s: s.stage == "turn" and s.ap_spent == 0 and s.round >= 2
          and any(a["type"] == "buy_card" for a in tr.legal_actions(s))
          and any(a["type"] == "build" for a in tr.legal_actions(s)))
    start = svc.games.current(gid)
    seat = start.to_move
    assert seat is not None
    builds = [a for a in tr.legal_actions(start.state) if a["type"] == "build"]
    act(svc, game, builds[0])
    second = [a for a in tr.legal_actions(svc.games.current(gid).state) if a["type"] in ("build", "move_knight")]
    act(svc, game, second[0])
    view = client.get(f"/v1/games/{gid}/view").get_json()["lifecycle"]
    assert view["can_undo"] is True and view["undo_enabled"] is True
    version = svc.games.current(gid).version
    assert _undo(client, game, seat, version, "a").status_code == 201
    assert _undo(client, game, seat, version + 1, "b").status_code == 201
    assert svc.games.current(gid).state.to_position() == start.state.to_position()
    refused = _undo(client, game, seat, version + 2, "c")
    assert refused.status_code == 409 and refused.get_json()["code"] == "undo_unavailable"

    # Build, then buy a card: neither the buy nor the build before it can be taken back.
    act(svc, game, builds[0], tag="x")
    act(svc, game, {"type": "buy_card"})
    closed = _undo(client, game, seat, svc.games.current(gid).version, "d")
    assert closed.status_code == 409 and closed.get_json()["code"] == "undo_unavailable"
    assert client.get(f"/v1/games/{gid}/view").get_json()["lifecycle"]["can_undo"] is False


def test_undo_by_the_wrong_seat_or_at_a_stale_version_is_refused(client: FlaskClient, app: Flask) -> None:
    svc = svc_of(app)
    game = create(client)
    gid = game["game_id"]
    drive(svc, game, random.Random(6), STAGES["turn"])
    folded = svc.games.current(gid)
    seat = folded.to_move
    assert seat is not None
    other = 1 - seat
    events_before = len(log(svc, game))
    stale = _undo(client, game, seat, folded.version - 1, "s")
    assert stale.status_code == 409 and stale.get_json()["code"] == "version_conflict"
    assert stale.get_json()["current_version"] == folded.version
    wrong = _undo(client, game, other, folded.version, "w")
    assert wrong.status_code == 403 and wrong.get_json()["code"] == "not_your_turn"
    foreign = _undo(client, game, seat, folded.version, "f", token_seat=other)
    assert foreign.status_code == 403 and foreign.get_json()["code"] == "forbidden"
    malformed = client.post(f"/v1/games/{gid}/undo", headers=bearer(game["seats"][seat]["token"]),
                            json={"seat": seat, "expected_version": "1", "command_id": "m"})
    assert malformed.status_code == 400
    assert len(log(svc, game)) == events_before  # nothing appended
    ok = _undo(client, game, seat, folded.version, "ok")
    assert ok.status_code == 201
    replay = _undo(client, game, seat, folded.version, "ok")
    assert replay.status_code == 201 and replay.headers["Idempotent-Replayed"] == "true"
    assert replay.get_json() == ok.get_json()


def test_undo_can_be_switched_off(client: FlaskClient, app: Flask) -> None:
    svc = svc_of(app)
    game = create(client, undo=False)
    drive(svc, game, random.Random(6), STAGES["turn"])
    folded = svc.games.current(game["game_id"])
    assert folded.to_move is not None
    response = _undo(client, game, folded.to_move, folded.version, "n")
    assert response.status_code == 409 and response.get_json()["code"] == "undo_disabled"
    assert folded.life.undo == ()  # nothing is ever undoable: a forged undo event would not fold either
    with pytest.raises(ValueError, match="not the last undoable"):
        lc.step(folded.state, folded.life, "action_undone", {"seat": folded.to_move, "undone_version":
                folded.version}, folded.version + 1, "2026-01-01T00:00:00+00:00", None)


# -- the public card history ----------------------------------------------------------------------------

@pytest.mark.parametrize("deck", ["personal", "common"])
def test_every_view_lists_the_cards_played_as_the_log_says(client: FlaskClient, app: Flask, deck: str) -> None:
    svc = svc_of(app)
    game = create(client, players=3, options={"deck": deck})
    gid = game["game_id"]
    rng = random.Random(21)
    checks = 0
    while not svc.games.current(gid).over:
        legal = tr.legal_actions(svc.games.current(gid).state)
        cards = [a for a in legal if a["type"] in ("buy_card", "play_card")]
        act(svc, game, rng.choice(cards if cards and rng.random() < 0.5 else legal))
        if rng.random() < 0.1 or svc.games.current(gid).over:
            checks += 1
            events = client.get(f"/v1/games/{gid}/events?limit=1000", headers=ADMIN).get_json()["events"]
            applied = [e["payload"] for e in events if e["type"] == "action_applied"]
            played = [[p["action"]["card"] for p in applied if p["seat"] == s and p["action"]["type"] == "play_card"]
                      for s in range(3)]
            bought = [sum(1 for p in applied if p["seat"] == s and p["action"]["type"] == "buy_card")
                      for s in range(3)]
            for reader in (None, 0, 1, 2):
                headers = bearer(game["seats"][reader]["token"]) if reader is not None else {}
                view = client.get(f"/v1/games/{gid}/view", headers=headers).get_json()["view"]
                assert view["played"] == played and view["cards_bought_total"] == bought
    assert checks > 3 and any(svc.games.current(gid).state.played)
