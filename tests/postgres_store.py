"""The session's PostgreSQL database and its migrated event store, for the suites that share one (game, AI):
``pg_url, pg_store = postgres_store_fixtures("torres_game_test", max_size=8)`` in their conftest."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from torres_game.store import PostgresEventStore

MIGRATIONS = Path(__file__).resolve().parents[1] / "infra" / "migrations"


def postgres_store_fixtures(prefix: str, *, max_size: int) -> tuple[Any, Any]:
    """Two session fixtures: ``pg_url``, a throwaway database named after ``prefix`` (tests/conftest.py), and
    ``pg_store``, a PostgreSQL event store on it (pool of ``max_size``) with every migration applied."""

    @pytest.fixture(scope="session", name="pg_url")
    def pg_url(throwaway_database: Callable[[str], contextlib.AbstractContextManager[str]]) -> Iterator[str]:
        with throwaway_database(prefix) as url:
            yield url

    @pytest.fixture(scope="session", name="pg_store")
    def pg_store(pg_url: str) -> Iterator[PostgresEventStore]:
        store = PostgresEventStore(pg_url, min_size=1, max_size=max_size, migrations_dir=MIGRATIONS)
        store.migrate()
        yield store
        store.close()

    return pg_url, pg_store
