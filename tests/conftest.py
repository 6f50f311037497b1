"""Suite-wide hooks.

Tests of the event store, Celery and matchmaking use the machine's real PostgreSQL and Redis servers and skip
when one is unreachable, so that a developer without them can still run the rest. CI must never pass by
skipping them: with TORRES_REQUIRE_SERVICES=1 (set by .ci/run) such a skip is reported as a failure.
"""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Callable, Generator, Iterator
from typing import Any

import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[Any]) -> Generator[None, Any, None]:
    outcome = yield
    report = outcome.get_result()
    if os.environ.get("TORRES_REQUIRE_SERVICES") == "1" and report.skipped and "not reachable" in str(report.longrepr):
        report.outcome = "failed"


ADMIN_URL = os.environ.get("TEST_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/postgres")


@pytest.fixture(scope="session")
def throwaway_database() -> Callable[[str], contextlib.AbstractContextManager[str]]:
    """`with throwaway_database("prefix") as url:` -- see `_throwaway_database`."""
    return _throwaway_database


@contextlib.contextmanager
def _throwaway_database(prefix: str) -> Iterator[str]:
    """A uniquely named database on the real PostgreSQL server (TEST_DATABASE_URL is the admin connection),
    dropped afterwards, so that concurrent developers and CI runs never collide. Skips when the server is
    unreachable (a failure under TORRES_REQUIRE_SERVICES=1, see above)."""
    import psycopg

    name = f"{prefix}_{os.getpid()}_{uuid.uuid4().hex[:8]}"
    try:
        admin = psycopg.connect(ADMIN_URL, autocommit=True, connect_timeout=3)
    except psycopg.OperationalError as exc:  # pragma: no cover - depends on the machine
        pytest.skip(f"PostgreSQL not reachable at {ADMIN_URL}: {exc}")
    with admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield f"{ADMIN_URL.rpartition('/')[0]}/{name}"
    finally:
        with psycopg.connect(ADMIN_URL, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
