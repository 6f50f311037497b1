"""Notices after the commit (migration 0013): no append transaction notifies, so none takes PostgreSQL's
instance-wide notify lock; the appending process sends the notice after its commit, and a notice that is never
sent (the process died in between) still wakes the waiters, by the listeners' periodic re-read.

The wake-up tests (tests/game/test_push.py: across replicas, a killed listener connection, a lost
listener) run unchanged on this path."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import psycopg
import pytest
from flask import Flask

from torres_game.store import PostgresEventStore
from torres_game.store.base import AppendOptions, GameRecord, GameSecret, NewEvent
from torres_game.waiting import CHANNEL, PgNotifier, wait_for_version

pytestmark = [pytest.mark.postgres, pytest.mark.timeout(120)]

ROOT = Path(__file__).resolve().parents[2]


def new_game(store: PostgresEventStore) -> str:
    game_id = f"g-{uuid.uuid4().hex[:12]}"
    record = GameRecord(game_id, "", "rio_grande", False, {}, [{"seat": 0, "kind": "human"}],
                        summary={"to_move": 0})
    store.create_game(record, GameSecret(1, [None]), [NewEvent("game_created", {})], f"create:{game_id}")
    return game_id


def test_the_append_transaction_notifies_nobody_and_the_notice_follows_its_commit(
        pg_url: str, pg_store: PostgresEventStore) -> None:
    game_id = new_game(pg_store)
    assert pg_store.notifier.flush(10)
    with psycopg.connect(pg_url, autocommit=True) as listening:
        listening.execute(f"LISTEN {CHANNEL}")
        # 1. The database's append alone (what every replica's append runs): it commits and notifies nobody. Before
        # 0013 a trigger on the games row notified inside this very transaction.
        with psycopg.connect(pg_url, autocommit=True) as raw:
            row = raw.execute(
                "SELECT outcome FROM torres_append(%s, 1, 'raw-1', NULL, now(), %s::jsonb, NULL, NULL, NULL, false,"
                " NULL, NULL)",
                (game_id, '[{"type": "action_applied", "payload": {}, "schema_version": 1,'
                          f' "content_hash": "{"0" * 64}"}}]')).fetchone()
        assert row == ("ok",)
        assert [n.payload for n in listening.notifies(timeout=1.0) if n.payload.startswith(game_id)] == []
        # 2. The store's append: its notice comes from the notifier's own transaction, once the append committed.
        pg_store.append(game_id, 2, [NewEvent("action_applied", {"seat": 0})], "c-3",
                        AppendOptions(summary={"to_move": 0}))
        heard = [n for n in listening.notifies(timeout=3) if n.payload.startswith(game_id)]
        notifiers = {r[0] for r in listening.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
            " AND application_name = 'torres-notifier'")}
    assert [n.payload for n in heard] == [f"{game_id} 3 active 0"]
    assert heard[0].pid in notifiers


# The process that appends dies the moment its append has committed, before its notice leaves.
KILLED_AFTER_COMMIT = """
import os, signal, sys
from torres_game.store import PostgresEventStore
from torres_game.store.base import AppendOptions, NewEvent
from torres_game.waiting import PgNotifier

def die(self, channel, payload):  # called after the commit returned: the notice is never sent
    print("committed", flush=True)
    os.kill(os.getpid(), signal.SIGKILL)

PgNotifier.send = die
url, game_id = sys.argv[1:]
store = PostgresEventStore(url, min_size=1, max_size=1)
store.append(game_id, 1, [NewEvent("action_applied", {"seat": 0})], "killed-2", AppendOptions(summary={"to_move": 0}))
print("unreachable", flush=True)
"""


def test_a_waiter_is_woken_when_the_appending_process_dies_between_its_commit_and_its_notice(
        pg_app: Flask, pg_url: str, pg_store: PostgresEventStore) -> None:
    service = pg_app.extensions["torres_game"]
    listener = service.hub.listener
    assert listener is not None and listener.connected.wait(10)
    game_id = new_game(pg_store)
    before, listener.recheck_every = listener.recheck_every, 0.5
    sub = service.hub.subscribe(game_id)
    woken: dict[str, float | int | None] = {}
    try:
        rechecks = listener.rechecks
        while listener.rechecks < rechecks + 2:  # the shorter interval is in force
            time.sleep(0.05)

        def wait() -> None:
            woken["version"] = wait_for_version(sub, lambda: pg_store.current_version(game_id), 1, 30)
            woken["at"] = time.monotonic()

        waiter = threading.Thread(target=wait, daemon=True)
        waiter.start()
        run = subprocess.run([sys.executable, "-c", KILLED_AFTER_COMMIT, pg_url, game_id], capture_output=True,
                             text=True, timeout=60, cwd=ROOT)
        killed_at = time.monotonic()
        assert run.returncode == -9 and run.stdout.split() == ["committed"], run.stdout + run.stderr
        assert pg_store.current_version(game_id) == 2  # the append committed; its notice never left
        waiter.join(10)
        assert not waiter.is_alive(), "the waiter slept on: the missing notice was never made up for"
        assert woken["version"] == 2
        assert float(woken["at"] or 0) - killed_at < 3 * 0.5 + 1  # within the re-read's interval, not the wait's 30 s
    finally:
        listener.recheck_every = before
        service.hub.unsubscribe(sub)


def test_under_load_the_notifier_sends_a_batch_per_period_and_a_lone_notice_at_once(
        pg_url: str, pg_store: PostgresEventStore) -> None:
    """Each notifier call is a transaction of its own: one per linger under load cost a fifth of the two cores at 64
    writers (docs/performance.md, "Writes that scale"). Under load the calls are `spacing` apart; a notice after a
    quiet spell still leaves after the linger alone."""
    notifier = PgNotifier(pg_url)
    try:
        with psycopg.connect(pg_url, autocommit=True) as listening:
            listening.execute(f"LISTEN {CHANNEL}")
            started = time.monotonic()
            sent = 0
            while time.monotonic() - started < 1.0:  # a notice every 0.2 ms: far more than one per linger
                notifier.send(CHANNEL, f"load-{sent} 1 active 0")
                sent += 1
                time.sleep(0.0002)
            assert notifier.flush(10)
            elapsed = time.monotonic() - started
            assert notifier.sent == sent
            assert notifier.calls <= elapsed / notifier.spacing + 3, (notifier.calls, sent)
            assert notifier.calls >= 5  # batched by period, not all in one call at the end
            heard = {n.payload for n in listening.notifies(timeout=2, stop_after=sent)}
            assert len(heard) == sent
            time.sleep(2 * notifier.spacing)  # quiet
            before = notifier.calls
            at = time.monotonic()
            notifier.send(CHANNEL, "lone 1 active 0")
            assert notifier.flush(5)
            assert notifier.calls == before + 1
            assert time.monotonic() - at < 0.5  # sent on its own, without waiting for more
    finally:
        notifier.close()
