"""AI drivers for the game service (``torres_game.ai.AiDriver``) and the factory that picks one.

* :class:`CeleryDriver` hands each due turn to a Celery task through Redis. ``turn_due`` only puts the
  turn on an in-memory queue that a daemon thread publishes from, so a slow or dead broker never blocks
  a player's request; a publish that fails is logged and left to the sweeper (the outbox row stays).
* :class:`ThreadDriver` plays the turns in-process with the real bots (levels from the environment):
  the embedded default, so ``make run`` needs no Redis and a person can play against AI seats.
* :func:`from_env` chooses: a broker URL (``CELERY_BROKER_URL`` or ``REDIS_URL``) means Celery.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING

from torres_game.ai import BackgroundDriver

from .bots import LocalPlanMemory
from .config import Settings
from .turns import LevelBots, play_due_turn

if TYPE_CHECKING:
    from celery import Celery

    from torres_game.ai import AiDriver
    from torres_game.service import GameService

log = logging.getLogger(__name__)


class ThreadDriver(BackgroundDriver):
    """One daemon thread plays due AI turns with the real bots, in the order they became due."""

    thread_name = "torres-ai-bots"

    def __init__(self, settings: Settings | None = None, *, delay: float = 0.0) -> None:
        super().__init__(delay)
        self.settings = settings or Settings()
        self.bots = LevelBots(self.settings, LocalPlanMemory())

    def play(self, service: GameService, game_id: str, seat: int, version: int) -> None:
        play_due_turn(service, game_id, seat, version, self.bots)

class CeleryDriver(BackgroundDriver):
    """Publishes ``torres_ai.play_turn(game_id, seat, version)`` for every due turn; never blocks (a background
    thread publishes; a failed publish is left to the sweeper).

    ``synchronous=True`` publishes in the caller's thread (the worker uses it: a task is only done once
    the next turn it made due is on the queue).
    """

    thread_name = "torres-ai-publisher"

    def __init__(self, settings: Settings | None = None, *, synchronous: bool = False, celery: Celery | None = None
                 ) -> None:
        from .celery_app import make_app

        super().__init__()
        self.settings = settings or Settings.from_env()
        self.synchronous = synchronous
        self.celery = celery or make_app(self.settings)

    def start(self, service: GameService) -> None:
        if self.synchronous:
            self.queue_pending(service)
        else:
            super().start(service)

    def turn_due(self, game_id: str, seat: int, version: int) -> None:
        if self.synchronous:
            self.publish(game_id, seat, version)
        else:
            super().turn_due(game_id, seat, version)

    def play(self, service: GameService, game_id: str, seat: int, version: int) -> None:
        self.publish(game_id, seat, version)

    def publish(self, game_id: str, seat: int, version: int) -> bool:
        from .celery_app import publish_turn

        try:
            publish_turn(self.celery, self.settings.queue, game_id, seat, version)
            return True
        except Exception:
            log.exception("could not enqueue an AI turn; the sweeper will", extra={"game_id": game_id,
                                                                                   "version": version})
            return False

def from_env(env: Mapping[str, str] | None = None) -> AiDriver:
    """The driver the environment asks for: Celery when a broker URL is set, else in-process bots."""
    env = os.environ if env is None else env
    settings = Settings.from_env(env)
    if settings.broker_url:
        return CeleryDriver(settings)
    return ThreadDriver(settings, delay=float(env.get("TORRES_AI_DELAY", "0")))
