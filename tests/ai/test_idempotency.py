"""Running the same task twice appends exactly once; a task for an old version appends nothing.

Checked twice: through a real worker (tasks published to Redis, each outcome read back from the worker's
structured log, since results are not stored) and at the function level, including two deliveries racing
each other in threads.
"""

from __future__ import annotations

import threading

import pytest

from torres_ai.celery_app import TASK_PLAY, make_app
from torres_ai.config import Settings
from torres_ai.turns import LevelBots
from torres_game.ai_turns import OutboxOnlyDriver, Outcome, play_turn
from torres_game.service import GameService
from torres_game.store import PostgresEventStore

from .conftest import SERVICE, make_service, worker_env

pytestmark = [pytest.mark.postgres]
SEATS = [{"kind": "ai", "level": "medium"}, {"kind": "human", "player_id": "p"}]


def _new_game(service: GameService) -> str:
    """A game whose seat 0 (AI) is due at version 1 and whose next move is the human's."""
    return service.creation.create_game(SERVICE, edition="rio_grande", master=False, options={}, seats=SEATS)["game_id"]


def _versions(store: PostgresEventStore, gid: str) -> list[tuple[int, str]]:
    return [(e.version, e.command_id) for e in store.read(gid)]


@pytest.mark.redis
@pytest.mark.timeout(120)
def test_worker_runs_duplicate_and_stale_tasks_without_double_appends(
    pg_store, pg_url, redis_namespace, start_worker, purge_queue
) -> None:
    worker = start_worker(beat=False)
    service = make_service(pg_store, pg_url, OutboxOnlyDriver())
    gid = _new_game(service)
    app = make_app(Settings.from_env(worker_env(pg_url, redis_namespace)))

    def run(version: int, tag: str) -> str:
        task_id = f"{gid}:{version}:{tag}"
        app.send_task(TASK_PLAY, args=(gid, 0, version), queue=redis_namespace, task_id=task_id)
        return worker.turn_outcome(task_id)

    assert run(1, "first") == "played"
    assert run(1, "again") == "stale"  # a redelivery after the first append: the game moved on
    assert run(0, "old") == "stale"  # a task for an old version
    events = _versions(pg_store, gid)
    assert [c for _, c in events].count(f"ai:{gid}:1") == 1
    assert len(events) == 2  # game_created + the one AI action
    assert not [t for t in pg_store.pending_ai_turns(limit=1000) if t.game_id == gid]


def test_same_turn_twice_appends_once_and_old_version_appends_nothing(pg_store, pg_url) -> None:
    service = make_service(pg_store, pg_url, OutboxOnlyDriver())
    bots = LevelBots(Settings())
    gid = _new_game(service)
    assert play_turn(service, gid, 0, 1, bots.deciding()).outcome is Outcome.PLAYED
    assert play_turn(service, gid, 0, 1, bots.deciding()).outcome is Outcome.STALE
    assert play_turn(service, gid, 0, 0, bots.deciding()).outcome is Outcome.STALE
    assert play_turn(service, gid, 1, 2, bots.deciding()).outcome is Outcome.STALE  # a human seat is never played
    assert len(_versions(pg_store, gid)) == 2


def test_racing_deliveries_of_one_turn_append_once(pg_store, pg_url) -> None:
    """Two workers holding the same turn at the same moment: the store lets exactly one append through."""
    service_a = make_service(pg_store, pg_url, OutboxOnlyDriver())
    service_b = make_service(pg_store, pg_url, OutboxOnlyDriver())
    gid = _new_game(service_a)
    service_b.games.state_at(gid)  # both have the state cached: both pass the stale check
    outcomes: list[Outcome] = []
    barrier = threading.Barrier(2)

    def deliver(service: GameService) -> None:
        barrier.wait()
        outcomes.append(play_turn(service, gid, 0, 1, LevelBots(Settings()).deciding()).outcome)

    threads = [threading.Thread(target=deliver, args=(s,)) for s in (service_a, service_b)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert len(outcomes) == 2
    assert outcomes.count(Outcome.PLAYED) == 1  # the other is DUPLICATE (same command id) or STALE
    assert len(_versions(pg_store, gid)) == 2
