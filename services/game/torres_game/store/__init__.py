"""Event store backends, chosen by the database URL (PostgreSQL URL, else embedded SQLite)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from .base import EventStore
from .postgres import POOL_TIMEOUT, PostgresEventStore
from .sqlite import SqliteEventStore, path_from_url

__all__ = ["EventStore", "PostgresEventStore", "SqliteEventStore", "open_store"]


def open_store(url: str, *, migrations_dir: Path, pool_min: int = 1, pool_max: int = 4,
               pool_timeout: float = POOL_TIMEOUT, connect: Mapping[str, object] | None = None) -> EventStore:
    if url.startswith(("postgres://", "postgresql://")):
        return PostgresEventStore(url, min_size=pool_min, max_size=pool_max, migrations_dir=migrations_dir,
                                  timeout=pool_timeout, connect=connect)
    return SqliteEventStore(path_from_url(url), migrations_dir=migrations_dir)
