"""``POST``/``GET /v1/games/{id}/analysis``: refused while the game runs, stored beside the log (never in it), advanced
in slices by :func:`torres_game.analyses.advance` (what every AI driver calls) to the same result as one go, read by
whoever may read the game, and announced by the ``analysis.ready`` webhook in the transaction that stores it.

The service runs with ``ai_driver="none"`` (nothing advances behind the test's back); the test advances the slices
itself, with the installed AI worker's engine (the entry point the service finds it by). The Celery path is in
``tests/ai/test_analysis_worker.py``.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from prometheus_client import REGISTRY

import torres_rules as tr
from torres_game import analyses
from torres_game.app import create_app
from torres_game.service import GameService
from torres_online import events as ev

from .conftest import ADMIN, SERVICE, bearer, make_config
from .online_helpers import act
from .test_webhooks import SECRET, Receiver, outbox

HUMANS = [{"kind": "human", "player_id": "p1"}, {"kind": "human", "player_id": "p2"}]


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "postgres":
        return str(request.getfixturevalue("pg_url"))
    return f"sqlite:///{tmp_path / 'analysis.sqlite3'}"


@pytest.fixture
def receiver() -> Any:
    r = Receiver()
    yield r
    r.stop()


@pytest.fixture
def app(database_url: str, receiver: Receiver) -> Any:
    application = create_app(make_config(database_url, webhook_url=receiver.url, webhook_secret=SECRET,
                                         webhook_interval=0))
    yield application
    application.extensions["torres_game"].close()


def _finish(svc: GameService, game: dict[str, Any], seed: int) -> None:
    rng = random.Random(seed)
    while not (folded := svc.games.current(game["game_id"])).over:
        act(svc, game, rng.choice(tr.legal_actions(folded.state)))


def _advance_all(svc: GameService, game_id: str, depth: str = "quick", budget: float = 0.0) -> list[analyses.Outcome]:
    engine = analyses.installed_engine()
    assert engine is not None, "the AI worker's analysis engine is installed with the project"
    outcomes = []
    while True:
        result = analyses.advance(svc.store, engine, game_id, depth, cpu_budget=budget)
        outcomes.append(result.outcome)
        if result.outcome != analyses.Outcome.CONTINUES:
            return outcomes


def test_a_running_games_analysis_is_refused_with_a_problem(app: Flask) -> None:
    client, svc = app.test_client(), app.extensions["torres_game"]
    game = client.post("/v1/games", headers=SERVICE, json={"seats": HUMANS}).get_json()
    act(svc, game, tr.legal_actions(svc.games.current(game["game_id"]).state)[0])
    token = game["seats"][0]["token"]
    for response in (client.post(f"/v1/games/{game['game_id']}/analysis", json={"depth": "quick"},
                                 headers=bearer(token)),
                     client.get(f"/v1/games/{game['game_id']}/analysis?depth=deep", headers=ADMIN)):
        assert response.status_code == 409
        assert response.mimetype == "application/problem+json"
        assert response.get_json()["code"] == "game_running"
    assert svc.store.get_analysis(game["game_id"], analyses.installed_engine().version, "quick") is None


def test_an_analysis_is_queued_advanced_in_slices_stored_beside_the_log_and_announced(
        app: Flask, receiver: Receiver) -> None:
    client, svc = app.test_client(), app.extensions["torres_game"]
    game = client.post("/v1/games", headers=SERVICE, json={"seats": HUMANS}).get_json()
    game_id = game["game_id"]
    _finish(svc, game, 3)
    version = svc.games.current(game_id).version
    path = f"/v1/games/{game_id}/analysis"

    assert client.get(f"{path}?depth=quick").get_json()["code"] == "analysis_not_found"
    assert client.post(path, json={"depth": "sideways"}).status_code == 400
    first = client.post(path, json={})  # anyone who may read the game (unlisted: anyone with the id); quick
    assert first.status_code == 202, first.get_json()
    body = first.get_json()
    assert (body["status"], body["depth"], body["turns_done"], body["result"]) == ("pending", "quick", 0, None)
    assert "CPU" in body["cost"]

    def counted() -> tuple[float, float, float]:
        def sample(name: str, **labels: str) -> float:
            return REGISTRY.get_sample_value(name, {"depth": "quick", **labels}) or 0.0
        return (sample("torres_game_analysis_slices_total", outcome="continues"),
                sample("torres_game_analysis_slices_total", outcome="done"),
                sample("torres_game_analysis_slice_cpu_seconds_count"))

    before = counted()
    outcomes = _advance_all(svc, game_id)  # the smallest slices: one turn each
    assert outcomes.count(analyses.Outcome.CONTINUES) >= 10 and outcomes[-1] == analyses.Outcome.DONE
    continues, done, timed = (now - then for now, then in zip(counted(), before, strict=True))
    assert (continues, done, timed) == (outcomes.count(analyses.Outcome.CONTINUES), 1, len(outcomes))
    ready = client.get(f"{path}?depth=quick", headers=bearer(game["seats"][1]["token"]))
    assert ready.status_code == 200
    body = ready.get_json()
    assert body["status"] == "ready" and body["cpu_seconds"] > 0
    result = body["result"]
    assert result["final_scores"] == svc.games.current(game_id).summary["scores"]
    assert body["turns_done"] == len(result["turns"]) >= 20
    assert len(result["scorings"]) == 3

    # Sliced or in one go, the same analysis (the engine is deterministic, slices share nothing but the rows).
    from torres_ai.analysis import analyse_events  # the engine itself, as the worker's package offers it

    secret = svc.store.get_secret(game_id)
    assert secret is not None
    assert analyse_events(svc.store.read(game_id), secret.seed, game_id, "quick") == result

    # A projection beside the log: not one event was appended, and the chain still verifies.
    assert svc.games.current(game_id).version == version
    assert [e.type for e in svc.store.read(game_id)][-1] == ev.GAME_ENDED
    assert client.get(f"/v1/games/{game_id}/verify").get_json()["ok"]

    # Asked again: 200, the stored one; nothing queued again, no second webhook.
    again = client.post(path, json={"depth": "quick"}, headers=SERVICE)
    assert again.status_code == 200 and again.get_json()["result"] == result
    assert _advance_all(svc, game_id) == [analyses.Outcome.SETTLED]
    hooks = [w for w in outbox(svc.store) if w.type == "analysis.ready"]
    assert len(hooks) == 1
    data = hooks[0].payload["data"]
    assert data == {"depth": "quick", "engine_version": result["engine_version"], "path": f"{path}?depth=quick"}
    assert hooks[0].payload["game_id"] == game_id
    assert client.get(f"{path}?depth=deep").get_json()["code"] == "analysis_not_found"  # depths are apart


def test_a_private_games_analysis_is_read_by_those_who_may_read_the_game(app: Flask) -> None:
    client, svc = app.test_client(), app.extensions["torres_game"]
    game = client.post("/v1/games", headers=SERVICE, json={"seats": HUMANS, "visibility": "private"}).get_json()
    _finish(svc, game, 5)
    path = f"/v1/games/{game['game_id']}/analysis"
    assert client.post(path, json={"depth": "quick"}).status_code == 404  # nobody entitled: no such game
    assert client.post(path, json={"depth": "quick"}, headers=bearer(game["seats"][0]["token"])).status_code == 202
    assert client.get(path, headers=SERVICE).get_json()["status"] == "pending"
    assert client.get(path).status_code == 404
