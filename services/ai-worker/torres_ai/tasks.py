"""Celery tasks: play a due AI turn (the whole turn), and sweep the outbox for turns nobody is playing.

Each worker process opens its own game service (no listener: nobody waits on a game here) and Redis client
lazily, on its first task (after the fork: database pools and sockets must not be shared between processes).
"""

from __future__ import annotations

import logging
import random
import time
from datetime import UTC, datetime
from typing import TYPE_CHECKING

import redis
from celery.signals import worker_process_shutdown

from torres_game import ai_turns, analyses
from torres_game.ai_turns import AiTurn, GameService
from torres_service import redis_urls

from . import metrics
from .analysis import ENGINE
from .celery_app import DEFAULT_BROKER, TASK_ANALYSE, TASK_PLAY, TASK_SWEEP, app, settings
from .driver import CeleryDriver
from .plan_store import RedisPlanMemory
from .turns import LevelBots

if TYPE_CHECKING:
    from celery import Task

log = logging.getLogger(__name__)
_process: dict[str, object] = {}


def _redis() -> redis.Redis:
    client = _process.get("redis")
    if client is None:
        client = _process["redis"] = redis_urls.client(settings.broker_url or DEFAULT_BROKER, socket_timeout=5)
    return client  # type: ignore[return-value]


def _service() -> GameService:
    service = _process.get("service")
    if service is None:
        # Publishing synchronously: the task that makes the next AI turn due also queues it.
        driver = CeleryDriver(settings, synchronous=True, celery=app)
        service = _process["service"] = ai_turns.open_service(driver)
        driver.attach(service)
    return service  # type: ignore[return-value]


def _bots() -> LevelBots:
    bots = _process.get("bots")
    if bots is None:
        bots = _process["bots"] = LevelBots(settings, RedisPlanMemory(_redis(), settings.key_prefix, settings.plan_ttl))
    return bots  # type: ignore[return-value]


@worker_process_shutdown.connect
def _close(**_: object) -> None:
    service = _process.pop("service", None)
    if service is not None:
        service.store.close()  # type: ignore[attr-defined]


def backoff(retries: int) -> float:
    """Exponential backoff with jitter: 1, 2, 4 ... 60 s."""
    return min(60.0, 2.0**retries) * random.uniform(0.5, 1.0)


@app.task(bind=True, name=TASK_PLAY, acks_late=True, reject_on_worker_lost=True, max_retries=settings.max_retries,
          ignore_result=True)
def play_turn(self: Task, game_id: str, seat: int, version: int) -> None:
    """Play the AI seat's whole turn from ``version`` (idempotent, resumable: :func:`torres_game.ai_turns.play_turn`).

    Any error (Redis, the database, a time limit) retries the task with backoff; the outbox row stays due
    meanwhile, so even a retry that cannot be published (the broker is down) loses nothing: the sweeper
    re-sends the turn. An error is never turned into a move."""
    service = _service()
    queue = (self.request.delivery_info or {}).get("routing_key") or "?"
    started = time.perf_counter()
    fields = {"game_id": game_id, "seat": seat, "version": version, "queue": queue, "task_id": self.request.id}
    bots = _bots()
    try:
        result = ai_turns.play_turn(service, game_id, seat, version, bots.deciding(), delay=settings.delay,
                                    sleep=bots.sleep)
    except Exception as exc:
        metrics.RETRIES.labels("turn").inc()
        log.warning("AI turn failed; retrying", extra={**fields, "outcome": "retry", "error": repr(exc),
                                                        "attempt": self.request.retries + 1})
        raise self.retry(exc=exc, countdown=backoff(self.request.retries)) from exc
    if result.actions:
        metrics.DECISIONS.labels(result.level or "easy").inc(result.actions)
    metrics.TURNS.labels(queue, str(result.outcome)).inc()
    log.info("ai turn", extra={**fields, "from_version": result.version, "ai_level": result.level,
                               "outcome": str(result.outcome), "actions": result.actions,
                               "decision_ms": round(result.decision_seconds * 1000, 1),
                               "ms": round((time.perf_counter() - started) * 1000, 1)})


@app.task(bind=True, name=TASK_ANALYSE, acks_late=True, reject_on_worker_lost=True,
          max_retries=settings.max_retries, ignore_result=True)
def analyse(self: Task, game_id: str, depth: str) -> None:
    """One slice of a pending post-game analysis (:func:`torres_game.analyses.advance`), then the next slice
    published to the bulk queue, behind every human's AI turn that arrived meanwhile. An error retries the task;
    the row stays pending, and the sweeper re-sends an analysis that stopped advancing."""
    service = _service()
    started = time.perf_counter()
    fields = {"game_id": game_id, "depth": depth, "task_id": self.request.id}
    try:
        result = analyses.advance(service.store, ENGINE, game_id, depth, cpu_budget=settings.analysis_slice)
    except Exception as exc:
        log.warning("analysis slice failed; retrying", extra={**fields, "outcome": "retry", "error": repr(exc)})
        raise self.retry(exc=exc, countdown=backoff(self.request.retries)) from exc
    if result.outcome == analyses.Outcome.CONTINUES:
        service.driver.publish_analysis(game_id, depth)  # type: ignore[attr-defined]
    log.info("analysis slice", extra={**fields, "outcome": str(result.outcome), "turns": result.turns,
                                      "cpu_ms": round(result.cpu_seconds * 1000, 1),
                                      "ms": round((time.perf_counter() - started) * 1000, 1)})


@app.task(name=TASK_SWEEP, ignore_result=True)
def sweep() -> int:
    """Enqueue again every outbox turn still due ``sweep_after`` seconds after it became due (every due turn,
    whatever its age, when the broker lost its queues since the last look)."""
    return sweep_once(_service(), _redis())


def broker_lost(client: redis.Redis) -> bool:
    """True (once) when the broker lost its data since the last call: a restart without persistence, a flush.
    A sentinel key is set when missing; its absence means the queued turns went with it."""
    return bool(client.set(f"{settings.key_prefix}:broker-epoch", 1, nx=True))


def sweep_once(service: GameService, client: redis.Redis, *, older_than: float | None = None) -> int:
    """One sweep; a Redis ``SET NX EX`` marker keeps one turn from being re-sent more than once a period, in
    all sweepers together. Every due row is re-sent, whatever its age, when the broker lost its queues."""
    if older_than is None:
        older_than = 0.0 if broker_lost(client) else settings.sweep_after

    def claim(turn: AiTurn) -> bool:
        marker = f"{settings.key_prefix}:swept:{turn.game_id}:{turn.version}"
        return bool(client.set(marker, 1, nx=True, ex=max(1, int(settings.sweep_after))))

    publish = service.driver.publish  # type: ignore[attr-defined]
    sent, _ = ai_turns.sweep(service.store.pending_ai_turns(limit=1000),
                             lambda t: publish(t.game_id, t.seat, t.version), older_than=older_than, claim=claim)
    if sent:
        log.info("sweeper re-enqueued AI turns", extra={"count": sent, "older_than_s": older_than})
    # A pending analysis not advanced for a sweep period lost its slice's message: send it again (at most once a
    # period across sweepers, by the same kind of marker). A slice still running is harmless to duplicate.
    again = 0
    for row in service.store.pending_analyses(limit=1000):
        age = (datetime.now(UTC) - datetime.fromisoformat(row.updated_at)).total_seconds()
        marker = f"{settings.key_prefix}:swept-analysis:{row.game_id}:{row.depth}"
        if age >= older_than and client.set(marker, 1, nx=True, ex=max(1, int(settings.sweep_after))):
            service.driver.publish_analysis(row.game_id, row.depth)  # type: ignore[attr-defined]
            again += 1
    if again:
        log.info("sweeper re-enqueued analyses", extra={"count": again, "older_than_s": older_than})
    return sent + again
