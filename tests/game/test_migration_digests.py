"""An applied migration is never edited: each store records the SHA-256 of every file it applied and refuses to
migrate, and to report ready, once a file's text differs from what was applied (both backends, the CLI, /readyz)."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from torres_game.app import create_app
from torres_game.migrations import MigrationEdited
from torres_game.store import EventStore, PostgresEventStore, SqliteEventStore

from .conftest import MIGRATIONS, make_config
from .test_store_contract import raw


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def database(request: pytest.FixtureRequest, tmp_path: Path,
             throwaway_database: Callable[[str], contextlib.AbstractContextManager[str]]) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'digests.sqlite3'}"
    else:
        with throwaway_database("torres_digests_test") as url:
            yield url


def open_on(url: str, migrations: Path) -> EventStore:
    if url.startswith("sqlite:///"):
        return SqliteEventStore(Path(url.removeprefix("sqlite:///")), migrations_dir=migrations)
    return PostgresEventStore(url, min_size=1, max_size=2, migrations_dir=migrations)


def fetch_one(store: EventStore, sql: str) -> object:
    """The first column of the first row of ``sql``, read past the store's API."""
    if isinstance(store, PostgresEventStore):
        with store.pool.connection() as conn:
            row = conn.execute(sql).fetchone()
    else:
        assert isinstance(store, SqliteEventStore)
        with store._conn() as conn:
            row = conn.execute(sql).fetchone()
    assert row is not None
    return row[0]


def backend_of(url: str) -> str:
    return "sqlite" if url.startswith("sqlite:") else "postgres"


def test_an_edited_migration_stops_migrate_and_readiness(database: str, tmp_path: Path) -> None:
    migrations = tmp_path / "migrations"
    shutil.copytree(MIGRATIONS, migrations)
    store = open_on(database, migrations)
    try:
        assert store.migrate()
        assert store.migrate() == []  # unchanged files: nothing to do, nothing refused
        first = sorted((migrations / backend_of(database)).glob("0002_*.sql"))[0]
        first.write_text(first.read_text() + "\n-- edited after it was applied\n")
        with pytest.raises(MigrationEdited, match=first.name):
            store.migrate()
        with pytest.raises(MigrationEdited, match=first.name):
            store.migration_status()
    finally:
        store.close()

    with pytest.raises(MigrationEdited):  # a process that migrates at start refuses to start
        create_app(make_config(database, migrations_dir=migrations, auto_migrate=True))
    app = create_app(make_config(database, migrations_dir=migrations, auto_migrate=False))
    try:
        ready = app.test_client().get("/readyz")
        assert ready.status_code == 503 and first.name in ready.get_json()["detail"]
    finally:
        app.extensions["torres_game"].close()

    env = {**os.environ, "DATABASE_URL": database, "TORRES_MIGRATIONS_DIR": str(migrations)}
    cli = subprocess.run([sys.executable, "-m", "torres_game", "migrate"], env=env, capture_output=True, text=True,
                         timeout=60)
    assert cli.returncode == 2 and first.name in cli.stderr and "Traceback" not in cli.stderr


def test_a_database_migrated_before_digests_were_recorded_takes_them_on_its_next_migrate(
        database: str, tmp_path: Path) -> None:
    store = open_on(database, MIGRATIONS)
    try:
        store.migrate()
        raw(store, "UPDATE schema_migrations SET sha256 = NULL")
        assert store.migration_status()[1] == []  # no digest recorded: nothing to compare, still ready
        assert store.migrate() == []
        assert fetch_one(store, "SELECT count(*) FROM schema_migrations WHERE sha256 IS NULL") == 0
    finally:
        store.close()
