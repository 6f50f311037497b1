"""Celery tasks: play a due AI turn (the whole turn), and sweep the outbox for turns nobody is playing.

Each worker process builds its own game service and Redis client lazily, on its first task (after the
fork: database pools and sockets must not be shared between processes).
"""

from __future__ import annotations

import logging
import random
import time
from datetime import UTC, datetime
from typing import TYPE_CHECKING

import redis
from celery.signals import worker_process_shutdown

from . import metrics
from .celery_app import TASK_PLAY, TASK_SWEEP, app, settings
from .plan_store import RedisPlanMemory
from .turns import LevelBots, play_due_turn

if TYPE_CHECKING:
    from celery import Task

    from torres_game.service import GameService

log = logging.getLogger(__name__)
_process: dict[str, object] = {}


def _redis() -> redis.Redis:
    client = _process.get("redis")
    if client is None:
        client = _process["redis"] = redis.Redis.from_url(app.conf.broker_url, socket_timeout=5)
    return client  # type: ignore[return-value]


def _service() -> GameService:
    service = _process.get("service")
    if service is None:
        from torres_game.config import Config
        from torres_game.service import GameService
        from torres_game.store import open_store

        from .driver import CeleryDriver

        config = Config.from_env()
        store = open_store(config.database_url, migrations_dir=config.migrations_dir, pool_min=1, pool_max=2)
        # Publishing synchronously: the task that makes the next AI turn due also queues it.
        driver = CeleryDriver(settings, synchronous=True, celery=app)
        service = _process["service"] = GameService(store, config, driver)
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
    """Play the AI seat's whole turn from ``version`` (idempotent, resumable: see :mod:`torres_ai.turns`).

    Any error (Redis, the database, a time limit) retries the task with backoff; the outbox row stays due
    meanwhile, so even a retry that cannot be published (the broker is down) loses nothing: the sweeper
    re-sends the turn. An error is never turned into a move."""
    service = _service()
    queue = (self.request.delivery_info or {}).get("routing_key") or "?"
    started = time.perf_counter()
    fields = {"game_id": game_id, "seat": seat, "version": version, "queue": queue, "task_id": self.request.id}
    try:
        with service.driver.playing(game_id, seat):  # type: ignore[attr-defined]
            result = play_due_turn(service, game_id, seat, version, _bots())
    except Exception as exc:
        metrics.RETRIES.labels("turn").inc()
        log.warning("AI turn failed; retrying", extra={**fields, "outcome": "retry", "error": repr(exc),
                                                        "attempt": self.request.retries + 1})
        raise self.retry(exc=exc, countdown=backoff(self.request.retries)) from exc
    metrics.TURNS.labels(queue, str(result.outcome)).inc()
    log.info("ai turn", extra={**fields, "from_version": result.version, "ai_level": result.level,
                               "outcome": str(result.outcome), "actions": result.actions,
                               "decision_ms": round(result.decision_seconds * 1000, 1),
                               "ms": round((time.perf_counter() - started) * 1000, 1)})


@app.task(name=TASK_SWEEP, ignore_result=True)
def sweep() -> int:
    """Enqueue again every outbox turn still due ``sweep_after`` seconds after it became due."""
    return sweep_once(_service(), _redis())


def sweep_once(service: GameService, client: redis.Redis, *, older_than: float | None = None) -> int:
    """One sweep; a Redis ``SET NX EX`` marker keeps one turn from being re-sent more than once a period."""
    older_than = settings.sweep_after if older_than is None else older_than
    now = datetime.now(UTC)
    sent = 0
    for turn in service.store.pending_ai_turns(limit=1000):
        age = (now - datetime.fromisoformat(turn.created_at)).total_seconds() if turn.created_at else older_than
        if age < older_than:
            continue
        marker = f"{settings.key_prefix}:swept:{turn.game_id}:{turn.version}"
        if client.set(marker, 1, nx=True, ex=max(1, int(older_than))):
            enqueue(turn.game_id, turn.seat, turn.version)
            sent += 1
    if sent:
        log.info("sweeper re-enqueued AI turns", extra={"count": sent})
    return sent


def enqueue(game_id: str, seat: int, version: int) -> None:
    _service().driver.publish(game_id, seat, version)  # type: ignore[attr-defined]
