"""Many writers at one expected version on PostgreSQL: exactly one wins, no gap, no duplicate."""

from __future__ import annotations

import multiprocessing
import random
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from flask import Flask

from torres_game.errors import VersionConflict
from torres_game.store import PostgresEventStore
from torres_game.store.base import AppendOptions, NewEvent, StoredEvent

from .conftest import MIGRATIONS, bearer, create_game, event_count
from .test_store_contract import act, new_game

pytestmark = pytest.mark.postgres

WRITERS = 12


def test_threads_at_the_same_version_one_wins(pg_store: PostgresEventStore) -> None:
    game_id = new_game(pg_store)
    barrier = threading.Barrier(WRITERS)

    def writer(i: int) -> str:
        barrier.wait()
        try:
            pg_store.append(game_id, 1, act(i), f"writer-{i}")
            return "won"
        except VersionConflict as exc:
            assert exc.current_version == 2
            return "conflict"

    with ThreadPoolExecutor(WRITERS) as pool:
        outcomes = list(pool.map(writer, range(WRITERS)))
    assert outcomes.count("won") == 1 and outcomes.count("conflict") == WRITERS - 1
    assert [e.version for e in pg_store.read(game_id)] == [1, 2]


def test_threads_retrying_one_command_append_once(pg_store: PostgresEventStore) -> None:
    game_id = new_game(pg_store)
    barrier = threading.Barrier(WRITERS)

    def writer(_: int) -> tuple[int, bool]:
        barrier.wait()
        result = pg_store.append(game_id, 1, act(1), "the-one-command", AppendOptions(fingerprint="fp"))
        return result.version, result.duplicate

    with ThreadPoolExecutor(WRITERS) as pool:
        outcomes = list(pool.map(writer, range(WRITERS)))
    assert {v for v, _ in outcomes} == {2}
    assert sum(not dup for _, dup in outcomes) == 1
    assert [e.version for e in pg_store.read(game_id)] == [1, 2]


def _process_writer(url: str, game_id: str, i: int, barrier: Any, results: Any) -> None:
    store = PostgresEventStore(url, min_size=1, max_size=1, migrations_dir=MIGRATIONS)
    try:
        barrier.wait()
        store.append(game_id, 3, [NewEvent("action_applied", {"seat": 0, "action": {"i": i}})], f"p-{i}")
        results.put("won")
    except VersionConflict:
        results.put("conflict")
    finally:
        store.close()


def test_processes_at_the_same_version_one_wins(pg_url: str, pg_store: PostgresEventStore) -> None:
    game_id = new_game(pg_store)
    pg_store.append(game_id, 1, act(1), "a")
    pg_store.append(game_id, 2, act(2), "b")
    ctx = multiprocessing.get_context("fork")
    processes = 6
    barrier, results = ctx.Barrier(processes), ctx.Queue()
    workers = [ctx.Process(target=_process_writer, args=(pg_url, game_id, i, barrier, results))
               for i in range(processes)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(60)
    outcomes = [results.get(timeout=5) for _ in range(processes)]
    assert outcomes.count("won") == 1 and outcomes.count("conflict") == processes - 1
    versions = [e.version for e in pg_store.read(game_id)]
    assert versions == [1, 2, 3, 4]


def test_http_submissions_at_the_same_version_one_201_rest_409(pg_app: Flask) -> None:
    client = pg_app.test_client()
    game = create_game(client)
    game_id, token = game["game_id"], game["seats"][0]["token"]
    legal = client.get(f"/v1/games/{game_id}/legal-actions", headers=bearer(token)).get_json()
    before = event_count(client, game_id)
    barrier = threading.Barrier(8)

    def submit(i: int) -> int:
        local = pg_app.test_client()
        body = {"seat": 0, "action": random.Random(i).choice(legal["actions"]),
                "expected_version": legal["version"], "command_id": f"race-{i}"}
        barrier.wait()
        response = local.post(f"/v1/games/{game_id}/actions", json=body, headers=bearer(token))
        if response.status_code == 409:
            assert response.get_json()["current_version"] == legal["version"] + 1
        return response.status_code

    with ThreadPoolExecutor(8) as pool:
        codes = list(pool.map(submit, range(8)))
    assert sorted(codes) == [201] + [409] * 7
    assert event_count(client, game_id) == before + 1


def test_long_poll_sees_appends_made_by_another_process(pg_app: Flask, pg_url: str) -> None:
    """Two app instances (as two gunicorn workers): a wait on one wakes for an append on the other."""
    from torres_game.app import create_app

    from .conftest import make_config

    other = create_app(make_config(pg_url, pool_max=2))
    try:
        game = create_game(pg_app.test_client())
        gid, token = game["game_id"], game["seats"][0]["token"]

        def later() -> None:
            time.sleep(0.3)
            client = other.test_client()
            legal = client.get(f"/v1/games/{gid}/legal-actions", headers=bearer(token)).get_json()
            body = {"seat": 0, "action": legal["actions"][0], "expected_version": 1, "command_id": "x"}
            assert client.post(f"/v1/games/{gid}/actions", json=body, headers=bearer(token)).status_code == 201

        thread = threading.Thread(target=later)
        thread.start()
        started = time.monotonic()
        woke = pg_app.test_client().get(f"/v1/games/{gid}/wait?version=1&timeout=10").get_json()
        thread.join()
        assert woke["version"] == 2 and woke["changed"] and time.monotonic() - started < 5
    finally:
        other.extensions["torres_game"].close()


def test_a_stale_cache_answers_409_not_403(pg_app: Flask, pg_url: str) -> None:
    """Process A still caches version 1 when process B appends version 2: A must answer 409."""
    from torres_game.app import create_app

    from .conftest import make_config

    other = create_app(make_config(pg_url, pool_max=2))
    try:
        client_a, client_b = pg_app.test_client(), other.test_client()
        game = create_game(client_a)
        gid = game["game_id"]
        t0, t1 = game["seats"][0]["token"], game["seats"][1]["token"]
        legal = client_b.get(f"/v1/games/{gid}/legal-actions", headers=bearer(t0)).get_json()
        body = {"seat": 0, "action": legal["actions"][0], "expected_version": 1, "command_id": "b"}
        assert client_b.post(f"/v1/games/{gid}/actions", json=body, headers=bearer(t0)).status_code == 201
        stale = {"seat": 1, "action": legal["actions"][1], "expected_version": 1, "command_id": "a"}
        response = client_a.post(f"/v1/games/{gid}/actions", json=stale, headers=bearer(t1))
        assert response.status_code == 409 and response.get_json()["current_version"] == 2
        assert event_count(client_a, gid) == 2
    finally:
        other.extensions["torres_game"].close()


def _open_append(pg_url: str, game_id: str, expected: int) -> tuple[Any, int]:
    """An append whose transaction stays open: torres_append run on a connection outside autocommit. Returns
    the connection (commit or roll back to end it) and the position its event drew."""
    import psycopg
    from psycopg.types.json import Jsonb

    conn = psycopg.connect(pg_url)
    row = conn.execute(
        "SELECT outcome, positions FROM torres_append(%s, %s, %s, NULL, now(), %s, NULL, NULL, NULL, false,"
        " NULL, NULL)",
        (game_id, expected, f"open-{game_id}", Jsonb([{"type": "action_applied", "payload": {"seat": 0},
                                                        "schema_version": 1, "content_hash": "c" * 64}])),
    ).fetchone()
    assert row is not None and row[0] == "ok"
    return conn, row[1][0]


def test_the_notification_log_never_skips_a_position_that_commits_later(pg_url: str,
                                                                      pg_store: PostgresEventStore) -> None:
    """Writer A draws position p and has not committed; writer B draws q > p and commits. B must not wait
    for A (appends of different games do not serialise), and a reader of the log must not hand out q before
    p is settled: a consumer that moved its cursor to q would never see p."""
    slow_game, fast_game = new_game(pg_store), new_game(pg_store)
    start = pg_store.notifications(after=0, limit=100000)[-1].position
    conn, p = _open_append(pg_url, slow_game, 1)
    try:
        with ThreadPoolExecutor(2) as pool:
            fast = pool.submit(pg_store.append, fast_game, 1, act(1), "fast")
            q = fast.result(timeout=10).events[0].position  # committed, not held behind A's open transaction
            assert q > p
            page = pool.submit(pg_store.notifications, after=start, limit=1000)
            time.sleep(0.5)
            assert not page.done(), f"the log was read past an unsettled position: {page.result()}"
            conn.commit()
            # (background threads of other fixtures may append to this database too: only these games count)
            positions = [e.position for e in page.result(timeout=10) if e.game_id in (slow_game, fast_game)]
    finally:
        conn.close()
    assert positions == [p, q]


def test_a_rolled_back_append_leaves_a_hole_the_log_reads_past(pg_url: str, pg_store: PostgresEventStore) -> None:
    game = new_game(pg_store)
    start = pg_store.notifications(after=0, limit=100000)[-1].position
    conn, p = _open_append(pg_url, game, 1)
    conn.rollback()
    conn.close()
    q = pg_store.append(game, 1, act(1), "after-the-rollback").events[0].position
    assert q > p
    assert [e.position for e in pg_store.notifications(after=start, limit=1000) if e.game_id == game] == [q]


def test_concurrent_writers_and_a_tailing_reader_see_every_position_once(pg_store: PostgresEventStore) -> None:
    """Eight writers append as fast as they can while a consumer tails the log by its cursor, as the ratings
    consumer does: it must see every position of theirs, once, in ascending order. (Background threads of other
    fixtures may append to the same database meanwhile: only these games' events are compared.)"""
    games = [new_game(pg_store) for _ in range(8)]
    ours = set(games)
    start = pg_store.notifications(after=0, limit=100000)[-1].position
    stop = threading.Event()

    def writer(game_id: str) -> None:
        version = 1
        while not stop.is_set():
            pg_store.append(game_id, version, act(version) * 2, f"w-{version}")
            version += 2

    seen: list[StoredEvent] = []

    def tail(limit: int) -> None:
        seen.extend(pg_store.notifications(after=seen[-1].position if seen else start, limit=limit))

    with ThreadPoolExecutor(len(games)) as pool:
        writers = [pool.submit(writer, g) for g in games]
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline:
            tail(50)
        stop.set()
        for w in writers:
            w.result(timeout=30)
    tail(100000)
    everything = [e.position for e in pg_store.notifications(after=start, limit=100000) if e.game_id in ours]
    tailed = [e.position for e in seen if e.game_id in ours]
    assert len(everything) > 100 and tailed == everything == sorted(set(everything))
