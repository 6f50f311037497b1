"""Fixtures for the game service: a throwaway PostgreSQL database per session, SQLite per test.

PostgreSQL tests use the real server (``TEST_DATABASE_URL`` is the admin connection, default the
local trust-auth ``postgres`` database); a uniquely named database is created for the session and
dropped at the end, so concurrent developers and CI runs never collide.
"""

from __future__ import annotations

import random
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from postgres_store import postgres_store_fixtures

import torres_rules as tr
from torres_game.app import create_app
from torres_game.config import Config
from torres_game.store import EventStore, SqliteEventStore

MIGRATIONS = Path(__file__).resolve().parents[2] / "infra" / "migrations"
API_KEY = "test-service-key"
ADMIN_KEY = "test-admin-key"

pg_url, pg_store = postgres_store_fixtures("torres_game_test", max_size=8)


@pytest.fixture
def sqlite_store(tmp_path: Path) -> Iterator[SqliteEventStore]:
    store = SqliteEventStore(tmp_path / "events.sqlite3", migrations_dir=MIGRATIONS)
    store.migrate()
    yield store
    store.close()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store(request: pytest.FixtureRequest) -> EventStore:
    """The same contract tests run against both backends."""
    return request.getfixturevalue("pg_store" if request.param == "postgres" else "sqlite_store")


def make_config(database_url: str, **changes: Any) -> Config:
    base = Config(
        database_url=database_url, api_key=API_KEY, admin_key=ADMIN_KEY, snapshot_every=20,
        ai_driver="none", migrations_dir=MIGRATIONS, json_logs=True, log_level="WARNING",
        # No transparency-log sequencer thread: the suite creates hundreds of apps, and an idle sequencer polls
        # its store every interval. Tests of the log integrate explicitly or ask for it (test_sequencer_thread).
        log_interval=0,
    )
    return base.with_(**changes)


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Flask]:
    application = create_app(make_config(f"sqlite:///{tmp_path / 'api.sqlite3'}"))
    yield application
    application.extensions["torres_game"].close()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.fixture(scope="session")
def pg_app(pg_url: str) -> Iterator[Flask]:
    application = create_app(make_config(pg_url, pool_max=8))
    yield application
    application.extensions["torres_game"].close()


@pytest.fixture
def pg_client(pg_app: Flask) -> FlaskClient:
    return pg_app.test_client()


# -- helpers shared by the API tests ------------------------------------------------------

SERVICE = {"X-API-Key": API_KEY}
ADMIN = {"X-Admin-Key": ADMIN_KEY}


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def create_game(client: FlaskClient, seats: list[dict[str, Any]] | None = None, **body: Any) -> dict[str, Any]:
    seats = seats or [{"kind": "human", "player_id": "p1"}, {"kind": "human", "player_id": "p2"}]
    response = client.post("/v1/games", json={"seats": seats, **body}, headers=SERVICE)
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def event_count(client: FlaskClient, game_id: str) -> int:
    return len(client.get(f"/v1/games/{game_id}/events?limit=1000", headers=ADMIN).get_json()["events"])


def openapi_document() -> dict[str, Any]:
    """The service's /openapi.json (the same on every backend), read from a throwaway app on SQLite."""
    with tempfile.TemporaryDirectory() as tmp:
        app = create_app(make_config(f"sqlite:///{tmp}/spec.sqlite3"))
        try:
            return app.test_client().get("/openapi.json").get_json()
        finally:
            app.extensions["torres_game"].close()


def play_one(client: FlaskClient, game: dict[str, Any], rng: random.Random, n: int) -> dict[str, Any]:
    """Submit one random legal action for the seat to move; returns the 201 body."""
    game_id = game["game_id"]
    summary = client.get(f"/v1/games/{game_id}").get_json()
    seat = summary["to_move"]
    token = game["seats"][seat]["token"]
    legal = client.get(f"/v1/games/{game_id}/legal-actions", headers=bearer(token)).get_json()
    action = rng.choice(legal["actions"])
    response = client.post(
        f"/v1/games/{game_id}/actions", headers=bearer(token),
        json={"seat": seat, "action": action, "expected_version": legal["version"], "command_id": f"cmd-{n}"},
    )
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def played_game(client: FlaskClient, seed: int, moves: int) -> dict[str, Any]:
    """A new two-player game (:func:`create_game`) after ``moves`` random legal actions (``random.Random(seed)``,
    command ids cmd-0 ...): at version ``moves + 1``."""
    game = create_game(client)
    rng = random.Random(seed)
    for n in range(moves):
        play_one(client, game, rng, n)
    return game


def random_state(players: int, seed: int, steps: int, edition: str = "rio_grande") -> tr.State:
    rng = random.Random(seed)
    state = tr.new_game(players=players, seed=seed, edition=edition)
    for _ in range(steps):
        if tr.is_over(state):
            break
        state = tr.apply(state, rng.choice(tr.legal_actions(state)))
    return state
