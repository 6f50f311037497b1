"""Fixtures of the audit tests: game services on SQLite and PostgreSQL whose clock the test moves."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from flask import Flask
from game.conftest import make_config
from game.online_helpers import Clock

from torres_game.app import create_app
from torres_game.service import GameService


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture(scope="module")
def audit_pg_url(throwaway_database: Callable[[str], contextlib.AbstractContextManager[str]]) -> Iterator[str]:
    with throwaway_database("torres_audit_test") as url:
        yield url


def _app(url: str, clock: Clock) -> Flask:
    application = create_app(make_config(url, enforcer_interval=0, pool_max=4))
    application.extensions["torres_game"].clock.now = clock
    return application


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def audit_app(request: pytest.FixtureRequest, tmp_path: Path, clock: Clock) -> Iterator[Flask]:
    """A game service on each backend, no enforcer thread (the driver enforces deadlines), the test's clock."""
    url = request.getfixturevalue("audit_pg_url") if request.param == "postgres" else \
        f"sqlite:///{tmp_path / 'audit.sqlite3'}"
    application = _app(url, clock)
    yield application
    application.extensions["torres_game"].close()


@pytest.fixture
def sqlite_app(tmp_path: Path, clock: Clock) -> Iterator[Flask]:
    application = _app(f"sqlite:///{tmp_path / 'audit.sqlite3'}", clock)
    yield application
    application.extensions["torres_game"].close()


def service(app: Flask) -> GameService:
    return app.extensions["torres_game"]
