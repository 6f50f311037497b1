"""The AI worker's drivers for the game service (``torres_game.ai_turns``) and the factory that picks one.

* :class:`CeleryDriver` hands each due turn to a Celery task through Redis, on the high-priority queue when
  the game has a human seat and on the bulk queue otherwise (:meth:`Settings.queue_for`). In the game service
  ``turn_due`` only puts the turn on an in-memory queue that a daemon thread publishes from, so a slow or dead
  broker never blocks a player's request; a publish that fails is logged (one structured line) and left to the
  sweeper (the outbox row stays).
* Post-game analyses (``analysis_due``) always go to the bulk queue, in slices (``torres_ai.tasks.analyse``).
* :func:`thread_driver`: the game service's in-process driver with the real bots (levels from the environment),
  the embedded default, so ``make run`` needs no Redis and a person can play against AI seats.
* :func:`from_env` chooses: a broker URL (``CELERY_BROKER_URL`` or ``REDIS_URL``) means Celery.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Mapping
from typing import TYPE_CHECKING

from torres_game.ai_turns import AiDriver, BackgroundDriver, GameService, log_enqueue_failure

from .bots import LocalPlanMemory
from .config import Settings
from .turns import LevelBots

if TYPE_CHECKING:
    from celery import Celery

log = logging.getLogger(__name__)


def thread_driver(settings: Settings | None = None) -> BackgroundDriver:
    """The real bots played in-process by one daemon thread, whole turns, in the order they became due
    (``TORRES_AI_DELAY`` paces each action, for people watching)."""
    settings = settings or Settings()
    driver = BackgroundDriver(LevelBots(settings, LocalPlanMemory()).deciding(), delay=settings.delay)
    driver.analysis_slice = settings.analysis_slice
    return driver


class CeleryDriver(BackgroundDriver):
    """Publishes ``torres_ai.play_turn(game_id, seat, version)`` for every due turn, humans first; never blocks
    (a background thread publishes; a failed publish is left to the sweeper).

    ``synchronous=True`` publishes in the caller's thread (the worker uses it: a task is only done once
    the next turn it made due is on the queue).
    """

    thread_name = "torres-ai-publisher"
    # Rows other processes wrote are theirs to publish (a worker publishes the turns its task makes due, an
    # enforcer the turns its timeouts make due), and the sweeper re-publishes any left due, once per period
    # across all processes (its Redis marker). A publisher re-publishing every row still waiting in a queue
    # would multiply the backlog by the number of service processes.
    adopts = False
    _QUEUE_CACHE = 4096

    def __init__(self, settings: Settings | None = None, *, synchronous: bool = False, celery: Celery | None = None
                 ) -> None:
        from .celery_app import make_app

        super().__init__()
        self.settings = settings or Settings.from_env()
        self.synchronous = synchronous
        self.celery = celery or make_app(self.settings)
        self._queues: OrderedDict[str, str] = OrderedDict()  # game id -> queue (seat kinds never change)

    def attach(self, service: GameService) -> None:
        """Where the queue of a game is looked up (its seats), without draining the outbox as start() does."""
        self._service = service

    def start(self, service: GameService) -> None:
        if self.synchronous:
            self.attach(service)
            self.queue_pending(service)
        else:
            super().start(service)

    def turn_due(self, game_id: str, seat: int, version: int) -> None:
        if not self.synchronous:
            super().turn_due(game_id, seat, version)
        elif not self.continues(game_id, seat):
            self.publish(game_id, seat, version)

    def play(self, service: GameService, game_id: str, seat: int, version: int) -> None:
        self.publish(game_id, seat, version)

    def analysis_due(self, game_id: str, depth: str) -> None:
        if self.synchronous:
            self.publish_analysis(game_id, depth)
        else:
            super().analysis_due(game_id, depth)

    def analyse(self, service: GameService, game_id: str, depth: str) -> None:
        """The publisher thread's part of an analysis: hand it to the workers' bulk queue (they slice it)."""
        self.publish_analysis(game_id, depth)

    def publish_analysis(self, game_id: str, depth: str) -> bool:
        from .celery_app import publish_analysis

        try:
            publish_analysis(self.celery, self.settings.bulk_queue, game_id, depth)
            return True
        except Exception as exc:  # the row stays pending: the sweeper re-sends it
            log.warning("could not enqueue an analysis; the sweeper re-sends it", extra={
                "game_id": game_id, "depth": depth, "error": f"{type(exc).__name__}: {exc}"})
            return False

    def queue_of(self, game_id: str) -> str:
        queue = self._queues.get(game_id)
        if queue is None:
            assert self._service is not None
            record = self._service.store.get_game(game_id)
            queue = self.settings.queue_for(record.seats if record else [])
            self._queues[game_id] = queue
            while len(self._queues) > self._QUEUE_CACHE:
                self._queues.popitem(last=False)
        return queue

    def publish(self, game_id: str, seat: int, version: int) -> bool:
        from .celery_app import publish_turn

        try:
            publish_turn(self.celery, self.queue_of(game_id), game_id, seat, version)
            return True
        except Exception as exc:
            log_enqueue_failure(game_id, seat, version, exc)
            return False


def from_env(env: Mapping[str, str] | None = None) -> AiDriver:
    """The driver the environment asks for: Celery when a broker URL is set, else in-process bots."""
    settings = Settings.from_env(env)
    if settings.broker_url:
        return CeleryDriver(settings)
    return thread_driver(settings)
