"""The Celery application: ``celery -A torres_ai.celery_app worker -B`` runs the AI worker.

Reliability settings and why:
* ``task_acks_late`` + ``task_reject_on_worker_lost``: a task is acknowledged only after it ran, so a
  worker killed mid-turn leaves the message to be delivered again (by Redis after the visibility
  timeout, or at once when only a pool process died); the outbox sweeper covers the rest.
* prefetch 1: a busy process does not sit on turns another process could play now.
* soft/hard time limits: a turn is budgeted far below them; they only stop a hang.
* ``task_ignore_result``: nothing reads a task's return value (the outcome is in the game's event log, the
  logs and the metrics), so no ``celery-task-meta-*`` key is written and no result backend is configured.
* two queues, humans first: ``TORRES_AI_QUEUE`` (default ``torres-ai``) holds the turns of games with a human
  seat, ``TORRES_AI_BULK_QUEUE`` (default ``torres-ai-bulk``) those of bot-only games. A worker consumes the
  queues in the order given (``queue_order_strategy=priority``: Redis ``BRPOP`` checks its keys in order),
  so a free process always takes a human's turn before a bulk one. Without ``-Q`` a worker consumes both.
* post-game analyses (``torres_ai.analyse``) go to the bulk queue only, one slice of bounded CPU time per task
  (``TORRES_AI_ANALYSIS_SLICE``), each slice publishing the next: a human's AI turn waits at most for the rest of
  one slice in a busy process, as behind a bot-only game's turn.
* the beat schedule runs the outbox sweeper (:func:`torres_ai.tasks.sweep`), the last line of defence
  when a publish failed, Redis lost its queue, or every delivery of a task died.
"""

from __future__ import annotations

import logging
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from celery import Celery, signals
from kombu import Queue

from torres_service.logs import LOG_LEVEL, JsonFormatter
from torres_service.redis_urls import celery_broker

from .config import Settings

TASK_PLAY = "torres_ai.play_turn"
TASK_SWEEP = "torres_ai.sweep"
TASK_ANALYSE = "torres_ai.analyse"
DEFAULT_BROKER = "redis://127.0.0.1:6379/0"


def make_app(settings: Settings) -> Celery:
    # A redis+sentinel:// URL becomes Kombu's sentinel:// list and the master's name (torres_service.redis_urls).
    broker, sentinel_options = celery_broker(settings.broker_url or DEFAULT_BROKER)
    app = Celery("torres_ai", broker=broker, include=["torres_ai.tasks"])
    app.conf.update(
        # Celery takes CELERY_BROKER_URL from the environment over the broker given here, and the environment holds
        # the URL as written (a redis+sentinel:// one Kombu cannot parse); its read and write URLs win over both.
        broker_read_url=broker,
        broker_write_url=broker,
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        task_ignore_result=True,
        worker_prefetch_multiplier=1,
        task_default_queue=settings.queue,
        task_queues=[Queue(settings.queue), Queue(settings.bulk_queue)],  # high priority first
        task_soft_time_limit=settings.soft_time_limit,
        task_time_limit=settings.time_limit,
        task_serializer="json",
        accept_content=["json"],
        broker_transport_options={"visibility_timeout": settings.visibility_timeout,
                                  "queue_order_strategy": "priority", **sentinel_options},
        broker_connection_retry_on_startup=True,
        worker_hijack_root_logger=False,
        beat_schedule={
            "sweep-ai-outbox": {
                "task": TASK_SWEEP,
                "schedule": settings.sweep_interval,
                "options": {"queue": settings.queue, "expires": settings.sweep_interval},
            }
        },
    )
    app.conf.torres_settings = settings
    return app


def publish_turn(app: Celery, queue: str, game_id: str, seat: int, version: int) -> None:
    """Publish one due turn; the task id is the command id, which makes duplicates easy to trace."""
    app.send_task(
        TASK_PLAY, args=(game_id, seat, version), queue=queue, task_id=f"ai:{game_id}:{version}",
        retry=True, retry_policy={"max_retries": 3, "interval_start": 0.2, "interval_step": 0.5, "interval_max": 2},
    )


def publish_analysis(app: Celery, queue: str, game_id: str, depth: str) -> None:
    """Publish one slice of a pending post-game analysis (always to the bulk queue: nobody is waiting at a board)."""
    app.send_task(
        TASK_ANALYSE, args=(game_id, depth), queue=queue,
        retry=True, retry_policy={"max_retries": 3, "interval_start": 0.2, "interval_step": 0.5, "interval_max": 2},
    )


def _is_worker_command(argv: list[str]) -> bool:
    """``celery ... worker`` (or ``python -m celery ... worker``): this process is about to become a worker."""
    program = Path(argv[0]) if argv else Path()
    return "celery" in (program.name, program.parent.name) and "worker" in argv[1:]


def _multiprocess_metrics(argv: list[str]) -> str | None:
    """A worker's metrics in prometheus-client multiprocess mode (see :mod:`torres_ai.metrics`). The mode is fixed
    when prometheus_client is first imported, which Celery does (with the task modules) before any worker signal,
    so this runs when the app module is imported, and only for the worker command: other processes that import
    it (the game service publishing turns, tests) keep the in-process registry."""
    if settings.metrics_port and not os.environ.get("PROMETHEUS_MULTIPROC_DIR") and _is_worker_command(argv):
        path = tempfile.mkdtemp(prefix="torres-ai-metrics-")
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = path
        return path
    return None


settings = Settings.from_env()
app = make_app(settings)
_metrics_dir = _multiprocess_metrics(sys.argv)


@signals.setup_logging.connect
def _logging(loglevel: str | int | None = None, **_: Any) -> None:
    """One JSON object per line for the worker, its pool processes and Celery itself (replaces Celery's setup)."""
    handler = logging.StreamHandler(sys.stdout)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(loglevel or LOG_LEVEL.read())


@signals.worker_init.connect
def _worker_started(**_: Any) -> None:
    from torres_service import redis_urls

    from . import metrics

    client = redis_urls.client(settings.broker_url or DEFAULT_BROKER, socket_timeout=2)  # LLEN per queue per scrape
    metrics.serve(settings.metrics_port, (settings.queue, settings.bulk_queue), client.llen)


@signals.worker_ready.connect
def _worker_ready(**_: Any) -> None:
    """Which rules-engine build the AI runs on (the compiled one is several times faster, docs/performance.md):
    torres_rules says so when first imported, before the worker's logging is set up (as is `worker_init`), so it is
    said again here."""
    import torres_rules as tr

    logging.getLogger("torres_ai").info("rules engine loaded", extra={"engine_build": tr.ENGINE_BUILD})


@signals.worker_process_shutdown.connect
def _pool_process_stopped(pid: int | None = None, **_: Any) -> None:
    from . import metrics

    metrics.process_exited(pid or os.getpid())


@signals.worker_shutdown.connect
def _worker_stopped(**_: Any) -> None:
    from . import metrics

    metrics.cleanup(_metrics_dir)
