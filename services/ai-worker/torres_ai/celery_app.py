"""The Celery application: ``celery -A torres_ai.celery_app worker -B`` runs the AI worker.

Reliability settings and why:
* ``task_acks_late`` + ``task_reject_on_worker_lost``: a task is acknowledged only after it ran, so a
  worker killed mid-decision leaves the message to be delivered again (by Redis after the visibility
  timeout, or at once when only a pool process died).
* prefetch 1: a busy process does not sit on turns another process could play now.
* soft/hard time limits: a decision is budgeted far below them; they only stop a hang.
* the beat schedule runs the outbox sweeper (:func:`torres_ai.tasks.sweep`), the last line of defence
  when a publish failed, Redis lost its queue, or every delivery of a task died.
"""

from __future__ import annotations

from celery import Celery

from .config import Settings

TASK_PLAY = "torres_ai.play_turn"
TASK_SWEEP = "torres_ai.sweep"
DEFAULT_BROKER = "redis://127.0.0.1:6379/0"


def make_app(settings: Settings) -> Celery:
    broker = settings.broker_url or DEFAULT_BROKER
    app = Celery("torres_ai", broker=broker, backend=settings.result_backend or broker, include=["torres_ai.tasks"])
    app.conf.update(
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        task_default_queue=settings.queue,
        task_soft_time_limit=settings.soft_time_limit,
        task_time_limit=settings.time_limit,
        task_serializer="json",
        result_serializer="json",
        accept_content=["json"],
        result_expires=3600,
        broker_transport_options={"visibility_timeout": settings.visibility_timeout},
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


settings = Settings.from_env()
app = make_app(settings)
