"""How many pytest-xdist workers ``make test`` starts: ``PYTEST_WORKERS`` when it is set, otherwise as many as the
test PostgreSQL's connection limit carries, at most 4.

Tests start game services whose processes each pool up to 16 connections, plus listeners and throwaway databases;
four workers at once ran a server with ``max_connections = 100`` out of connections ("sorry, too many clients"),
while one worker never has. So: a worker per 80 connections the server allows, at least one. `.ci/run` raises the
limit to 400 on its machine; a developer can do the same (``ALTER SYSTEM SET max_connections = 400`` and a restart)
or set ``PYTEST_WORKERS``."""

from __future__ import annotations

import os

import psycopg

PER_WORKER, MOST = 80, 4


def workers() -> int:
    if os.environ.get("PYTEST_WORKERS"):
        return int(os.environ["PYTEST_WORKERS"])
    try:
        url = os.environ.get("TEST_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/postgres")
        with psycopg.connect(url, connect_timeout=3) as conn:
            row = conn.execute("SHOW max_connections").fetchone()
        allowed = int(row[0]) if row else 100
    except psycopg.Error:  # no server: the tests that need one skip (or fail under CI); any count works
        return MOST
    return max(1, min(MOST, allowed // PER_WORKER))


if __name__ == "__main__":
    print(workers())
