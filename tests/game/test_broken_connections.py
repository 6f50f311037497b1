"""Connections that broke while idle in the pool (a failover, a restart of PostgreSQL, an idle-session timeout)
cost no request: the pool checks each connection it hands out and replaces the broken ones.

The focused failover tests (tests/faults/test_pg_failover.py) show the same through a killed Patroni primary;
here the server's side of the pooled connections is ended by ``pg_terminate_backend``, on the local server.
"""

from __future__ import annotations

import time

import psycopg
import pytest
from flask import Flask

from torres_game.config import Config

from .conftest import create_game

pytestmark = pytest.mark.postgres


def test_requests_after_every_idle_connection_broke_are_served_not_refused(pg_app: Flask, pg_url: str) -> None:
    client = pg_app.test_client()
    game_id = create_game(client)["game_id"]
    pool = pg_app.extensions["torres_game"].store.pool
    held = [pool.getconn() for _ in range(4)]  # four idle connections in the pool
    pids = [conn.info.backend_pid for conn in held]
    for conn in held:
        pool.putconn(conn)
    with psycopg.connect(pg_url, autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(pid) FROM unnest(%s::int[]) AS pid", (pids,))
    answers = []
    for _ in range(6):
        started = time.monotonic()
        response = client.get(f"/v1/games/{game_id}")
        answers.append((response.status_code, time.monotonic() - started))
    assert [status for status, _ in answers] == [200] * 6, answers
    # The first request waits while the pool replaces its connections: within the pool's timeout, never past it.
    assert max(seconds for _, seconds in answers) < Config.pool_timeout, answers
    with pool.connection() as conn:
        assert conn.info.backend_pid not in pids
