"""Real Celery workers (subprocesses, real Redis broker, real PostgreSQL game store) play AI games.

A worker started by the test plays a complete AI-vs-AI game through the game service;
killing a worker mid-task does not stop the game (redelivery + outbox sweeper).
"""

from __future__ import annotations

import contextlib
import json
import logging
import time
from collections.abc import Iterator

import httpx
import pytest
import redis
from prometheus_client.parser import text_string_to_metric_families
from serving import free_port

import torres_rules as tr
from torres_ai.config import Settings
from torres_ai.driver import CeleryDriver
from torres_game.service import GameService
from torres_game.store import PostgresEventStore
from torres_service.logs import JsonFormatter

from .conftest import REDIS_URL, SERVICE, make_service, wait_until, worker_env

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.timeout(240)]

AI_SEATS = [{"kind": "ai", "level": "easy"}, {"kind": "ai", "level": "easy"}]


def _publisher(pg_url: str, namespace: str) -> CeleryDriver:
    return CeleryDriver(Settings.from_env(worker_env(pg_url, namespace)))


@contextlib.contextmanager
def _ai_game(pg_store: PostgresEventStore, pg_url: str, namespace: str, *levels: str,
             ) -> Iterator[tuple[GameService, str]]:
    """A new game of AI seats at ``levels`` on a service whose driver publishes to the workers' queues: the
    service and the game id; the publisher is closed at the end."""
    driver = _publisher(pg_url, namespace)
    service = make_service(pg_store, pg_url, driver)
    try:
        game = service.creation.create_game(SERVICE, edition="rio_grande", master=False, options={},
                                   seats=[{"kind": "ai", "level": level} for level in levels])
        yield service, game["game_id"]
    finally:
        driver.close()


def _status(store: PostgresEventStore, game_id: str) -> tuple[str, int]:
    record = store.get_game(game_id)
    assert record is not None
    return record.status, record.version


def _assert_finished_cleanly(service, store: PostgresEventStore, game_id: str) -> None:  # type: ignore[no-untyped-def]
    report = service.queries.verify(game_id)
    assert report["ok"], report
    events = store.read(game_id)
    commands = [e.command_id for e in events if e.type == "action_applied"]
    assert len(commands) == len(set(commands)), "an AI command was appended twice"
    assert all(c.startswith("ai:") for c in commands)
    _, state = service.games.state_at(game_id)
    assert tr.is_over(state)
    assert not [t for t in store.pending_ai_turns(limit=1000) if t.game_id == game_id]


def test_worker_plays_a_complete_ai_game(pg_store, pg_url, redis_namespace, start_worker, purge_queue) -> None:
    """A whole game, then what it leaves: no task results in Redis (``ignore_result``), one JSON log
    line per turn task, and the worker's /metrics counting exactly the decisions appended, with no fallback."""
    port = free_port()
    worker = start_worker(beat=True, TORRES_AI_METRICS_PORT=str(port))  # beat: sweep tasks run too
    client = redis.Redis.from_url(REDIS_URL)
    results_before = sum(1 for _ in client.scan_iter("celery-task-meta-*", count=1000))
    with _ai_game(pg_store, pg_url, redis_namespace, "easy", "medium") as (service, gid):
        wait_until(lambda: _status(pg_store, gid)[0] == "over", 150, "the AI game to end", worker.log)
        _assert_finished_cleanly(service, pg_store, gid)
        assert _status(pg_store, gid)[1] > 100  # a whole game, not a stub
    assert not list(client.scan_iter(f"celery-task-meta-ai:{gid}:*"))
    assert sum(1 for _ in client.scan_iter("celery-task-meta-*", count=1000)) <= results_before
    played = [e for e in pg_store.read(gid) if e.type == "action_applied"]
    per_seat = {s: sum(1 for e in played if e.payload["seat"] == s) for s in (0, 1)}

    # the worker says once which rules-engine build its AI runs on (the same checkout as this test's)
    assert [r["engine_build"] for r in worker.records("rules engine loaded")] == [tr.ENGINE_BUILD]
    turns = [r for r in worker.records("ai turn") if r["game_id"] == gid]
    assert {"seat", "version", "from_version", "level", "outcome", "actions", "decision_ms", "queue"} <= set(turns[0])
    assert sum(r["actions"] for r in turns) == len(played)  # every action logged once
    assert len(turns) < len(played) / 2  # whole turns per task, not an action per task
    assert {r["queue"] for r in turns} == {f"{redis_namespace}-bulk"}  # bot-only: the bulk queue

    text = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=10).text
    samples = {(s.name, tuple(sorted(s.labels.items()))): s.value
               for family in text_string_to_metric_families(text) for s in family.samples}
    # The sweeper also finishes turns other tests of the session left due, so count what this worker logged.
    logged = {level: sum(r["actions"] for r in worker.records("ai turn") if r["ai_level"] == level)
              for level in ("easy", "medium")}
    assert logged["easy"] >= per_seat[0] and logged["medium"] >= per_seat[1]
    assert samples[("torres_ai_decisions_total", (("level", "easy"),))] == logged["easy"]
    assert samples[("torres_ai_decisions_total", (("level", "medium"),))] == logged["medium"]
    assert samples[("torres_ai_decision_seconds_count", (("level", "medium"),))] == logged["medium"]
    assert samples[("torres_ai_fallbacks_total", (("cause", "exception"),))] == 0
    assert samples[("torres_ai_fallbacks_total", (("cause", "illegal"),))] == 0
    assert ("torres_ai_queue_depth", (("queue", redis_namespace),)) in samples
    assert ("torres_ai_queue_depth", (("queue", f"{redis_namespace}-bulk"),)) in samples


def test_killed_worker_mid_task_the_game_still_finishes(
    pg_store, pg_url, redis_namespace, start_worker, purge_queue
) -> None:
    """SIGKILL the worker (parent and pool) while it is deciding; a second worker with the sweeper finishes.

    Seat 1 is ``hard`` with a 2 s budget in the first worker, so each of its turn plans is a task that runs
    for ~2 s: we kill when seat 1 has been thinking for 0.7 s without appending, i.e. mid-task.
    """
    first = start_worker(beat=False, TORRES_AI_HARD_SECONDS="2", TORRES_AI_HARD_ITERATIONS="100000")
    with _ai_game(pg_store, pg_url, redis_namespace, "easy", "hard") as (service, gid):

        def hard_seat_thinking() -> bool:
            version = _status(pg_store, gid)[1]
            _, state = service.games.state_at(gid)
            if state.stage != "turn" or state.to_move != 1 or version < 10:
                return False
            time.sleep(0.7)
            return _status(pg_store, gid)[1] == version

        wait_until(hard_seat_thinking, 90, "the hard seat to be mid-decision", first.log)
        killed_status, killed_version = _status(pg_store, gid)
        first.kill()
        assert killed_status == "active"
        time.sleep(1.0)
        assert _status(pg_store, gid)[1] == killed_version  # the killed task appended nothing
        second = start_worker(beat=True, TORRES_AI_HARD_SECONDS="0.1")  # beat: sweeper every 2 s, due > 4 s
        wait_until(lambda: _status(pg_store, gid)[0] == "over", 180, "the second worker to finish", second.log)
        _assert_finished_cleanly(service, pg_store, gid)
        replayed = [e for e in pg_store.read(gid) if e.command_id == f"ai:{gid}:{killed_version}"]
        assert len(replayed) == 1  # the interrupted turn was played exactly once, by the second worker


def test_lost_publish_and_lost_queue_are_recovered_by_the_sweeper(
    pg_store, pg_url, redis_namespace, start_worker, purge_queue, caplog
) -> None:
    """A broker that cannot be reached (publish fails) and a queue emptied behind our back (as after a Redis
    restart without persistence) lose no turn: the outbox row stays due and the sweeper enqueues it again.
    The game service says so in one structured line, rendered as the service renders its logs."""
    dead = CeleryDriver(Settings.from_env(worker_env(pg_url, redis_namespace,
                                                     CELERY_BROKER_URL="redis://127.0.0.1:1/13")))
    service = make_service(pg_store, pg_url, dead)
    try:
        started = time.monotonic()
        game = service.creation.create_game(SERVICE, edition="rio_grande", master=False, options={}, seats=AI_SEATS)
        assert time.monotonic() - started < 1.0  # turn_due never blocks on the broker
        gid = game["game_id"]
        with caplog.at_level(logging.WARNING, logger="torres_game.ai_turns"):
            wait_until(dead.idle, 30, "the publisher to give up")
        assert [t.version for t in pg_store.pending_ai_turns(limit=1000) if t.game_id == gid] == [1]
    finally:
        dead.close()
    [record] = [r for r in caplog.records if r.getMessage().startswith("could not enqueue an AI turn")]
    line = JsonFormatter().format(record)
    assert "\n" not in line  # one line: no multi-line traceback
    doc = json.loads(line)
    assert (doc["logger"], doc["game_id"], doc["seat"], doc["version"]) == ("torres_game.ai_turns", gid, 0, 1)
    assert "Connection refused" in doc["error"] and "exc" not in doc
    worker = start_worker(beat=True)
    wait_until(lambda: _status(pg_store, gid)[1] >= 30, 60, "the sweeper to resume the game", worker.log)
    worker.stop()  # graceful: its last task has published the next turn, which now waits in the queue
    client = redis.Redis.from_url(REDIS_URL)
    assert client.llen(f"{redis_namespace}-bulk") >= 1  # an AI-only game: the bulk queue
    client.delete(f"{redis_namespace}-bulk")  # the queue vanishes, as with a Redis restart without persistence
    stopped_at = _status(pg_store, gid)
    assert stopped_at[0] == "active"
    replacement = start_worker(beat=True)
    wait_until(lambda: _status(pg_store, gid)[0] == "over", 180, "the game to end", replacement.log)
    _assert_finished_cleanly(service, pg_store, gid)
