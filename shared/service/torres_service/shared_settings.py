"""Settings that the game service and the AI workers both read, declared once here, where neither package's
imports come along: the worker reads them before prometheus_client may be imported (its multiprocess mode is
fixed at that import, see ``torres_ai.celery_app``), and the game service's modules import the metrics."""

from __future__ import annotations

from torres_service.settings import Setting

#: Read by the game service (rate-limit counts, the AI drivers it runs) and the AI workers alike.
BROKER_URL = Setting("CELERY_BROKER_URL", "the Redis that carries AI turns to Celery workers (unset: AI turns "
                     "are played in-process); the game service also keeps its rate-limit counts there. "
                     "`redis://host:6379/0`, or a master watched by Redis Sentinel: "
                     "`redis+sentinel://sentinel1:26379,sentinel2:26379/<master>[?db=N]`",
                     default="", also=("REDIS_URL",))
AI_DELAY = Setting("TORRES_AI_DELAY", "demo pacing: seconds an AI seat waits before each action (the in-process "
                   "bot and the AI workers)", default=0.0)
