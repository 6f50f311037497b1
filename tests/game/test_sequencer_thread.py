"""The transparency log's sequencer thread in every game-service process: it starts where it may sign,
stops with the app, and never runs on a shared PostgreSQL database with a key the process generated itself
(each replica would sign the log with its own key, a new one at every restart: docs/operations.md)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask

from torres_audit.note import Signer
from torres_game.app import create_app
from torres_game.service import GameService

from .conftest import make_config

KEY = Signer.generate("sequencer.test/log")


def sequencers() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "torres-sequencer"]


class Captured(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@pytest.fixture
def captured() -> Iterator[Captured]:
    handler = Captured()
    logger = logging.getLogger("torres_game.service")
    logger.addHandler(handler)
    yield handler
    logger.removeHandler(handler)


def service(app: Flask) -> GameService:
    return app.extensions["torres_game"]


def test_the_test_apps_run_no_sequencer_unless_asked(tmp_path: Path) -> None:
    """make_config turns the thread off (a suite creating hundreds of apps pays nothing for it)."""
    app = create_app(make_config(f"sqlite:///{tmp_path / 'a.sqlite3'}"))
    try:
        assert service(app)._sequencer is None
    finally:
        service(app).close()


@pytest.mark.parametrize("backend", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_a_configured_key_runs_the_sequencer_and_close_stops_it(request: pytest.FixtureRequest, tmp_path: Path,
                                                                backend: str) -> None:
    url = request.getfixturevalue("pg_url") if backend == "postgres" else f"sqlite:///{tmp_path / 'b.sqlite3'}"
    before = set(sequencers())
    app = create_app(make_config(url, log_signing_key=KEY.skey(), log_interval=0.05, pool_max=2))
    thread = service(app)._sequencer
    assert thread is not None and thread.is_alive()
    service(app).close()
    assert not thread.is_alive() and set(sequencers()) == before


def test_a_generated_key_on_sqlite_still_runs_the_sequencer(tmp_path: Path, captured: Captured) -> None:
    """A dev server (one process, its own file) keeps its log working with its own key."""
    app = create_app(make_config(f"sqlite:///{tmp_path / 'c.sqlite3'}", log_interval=0.05))
    try:
        assert service(app).ephemeral_log_key and service(app)._sequencer is not None
        assert not [m for m in captured.messages if "transparency log" in m]
    finally:
        service(app).close()


@pytest.mark.postgres
def test_a_generated_key_on_postgres_runs_no_sequencer_and_says_so(pg_url: str, captured: Captured) -> None:
    app = create_app(make_config(pg_url, log_interval=0.05, pool_max=2))
    try:
        svc = service(app)
        assert svc.ephemeral_log_key and svc._sequencer is None
        (message,) = [m for m in captured.messages if "transparency log" in m]
        assert "TORRES_LOG_SIGNING_KEY" in message and "runs no sequencer" in message
    finally:
        service(app).close()
    # a log key alone (the record key generated) is a configured key for the log
    app = create_app(make_config(pg_url, log_signing_key=KEY.skey(), log_interval=0.05, pool_max=2))
    try:
        assert not service(app).ephemeral_log_key and service(app)._sequencer is not None
    finally:
        service(app).close()
