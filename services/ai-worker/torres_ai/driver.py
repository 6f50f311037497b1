"""AI drivers for the game service (``torres_game.ai.AiDriver``) and the factory that picks one.

* :class:`CeleryDriver` hands each due turn to a Celery task through Redis, on the high-priority queue when
  the game has a human seat and on the bulk queue otherwise (:meth:`Settings.queue_for`). In the game service
  ``turn_due`` only puts the turn on an in-memory queue that a daemon thread publishes from, so a slow or dead
  broker never blocks a player's request; a publish that fails is logged (one structured line,
  :func:`torres_game.ai.log_enqueue_failure`) and left to the sweeper (the outbox row stays).
* :class:`ThreadDriver` plays the turns in-process with the real bots (levels from the environment):
  the embedded default, so ``make run`` needs no Redis and a person can play against AI seats. It also takes up
  due turns other processes recorded and left (a standalone enforcer's, a dead replica's: see
  :class:`torres_game.ai.BackgroundDriver`); with Celery that is the sweeper's job.
* :func:`from_env` chooses: a broker URL (``CELERY_BROKER_URL`` or ``REDIS_URL``) means Celery.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

from torres_game.ai import BackgroundDriver, log_enqueue_failure

from .bots import LocalPlanMemory
from .config import Settings
from .turns import LevelBots, play_due_turn

if TYPE_CHECKING:
    from celery import Celery

    from torres_game.ai import AiDriver
    from torres_game.service import GameService


class WholeTurns:
    """While a thread plays a seat's turn (:meth:`playing`), the turns its own appends make due for that same
    seat are not handed on: the thread plays them itself (see :mod:`torres_ai.turns`)."""

    def __init__(self) -> None:
        self._local = threading.local()

    @contextlib.contextmanager
    def playing(self, game_id: str, seat: int) -> Iterator[None]:
        self._local.playing = (game_id, seat)
        try:
            yield
        finally:
            self._local.playing = None

    def continues(self, game_id: str, seat: int) -> bool:
        return getattr(self._local, "playing", None) == (game_id, seat)


class ThreadDriver(BackgroundDriver, WholeTurns):
    """One daemon thread plays due AI turns with the real bots, a whole turn at a time, in the order they
    became due (``TORRES_AI_DELAY`` paces each action, for people watching)."""

    thread_name = "torres-ai-bots"

    def __init__(self, settings: Settings | None = None) -> None:
        BackgroundDriver.__init__(self)
        WholeTurns.__init__(self)
        self.settings = settings or Settings()
        self.bots = LevelBots(self.settings, LocalPlanMemory())

    def turn_due(self, game_id: str, seat: int, version: int) -> None:
        if not self.continues(game_id, seat):
            super().turn_due(game_id, seat, version)

    def play(self, service: GameService, game_id: str, seat: int, version: int) -> None:
        with self.playing(game_id, seat):
            play_due_turn(service, game_id, seat, version, self.bots)


class CeleryDriver(BackgroundDriver, WholeTurns):
    """Publishes ``torres_ai.play_turn(game_id, seat, version)`` for every due turn, humans first; never blocks
    (a background thread publishes; a failed publish is left to the sweeper).

    ``synchronous=True`` publishes in the caller's thread (the worker uses it: a task is only done once
    the next turn it made due is on the queue). The worker's task wraps its turn in :meth:`playing`.
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

        BackgroundDriver.__init__(self)
        WholeTurns.__init__(self)
        self.settings = settings or Settings.from_env()
        self.synchronous = synchronous
        self.celery = celery or make_app(self.settings)
        self._queues: OrderedDict[str, str] = OrderedDict()  # game id -> queue (seat kinds never change)

    def attach(self, service: GameService) -> None:
        """Where the queue of a game is looked up (its seats), without draining the outbox as start() does."""
        self._service = service

    def start(self, service: GameService) -> None:
        self.attach(service)
        if self.synchronous:
            self.queue_pending(service)
        else:
            super().start(service)

    def turn_due(self, game_id: str, seat: int, version: int) -> None:
        if self.continues(game_id, seat):
            return  # the running task continues this seat's turn itself
        if self.synchronous:
            self.publish(game_id, seat, version)
        else:
            super().turn_due(game_id, seat, version)

    def play(self, service: GameService, game_id: str, seat: int, version: int) -> None:
        self.publish(game_id, seat, version)

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
    env = os.environ if env is None else env
    settings = Settings.from_env(env)
    if settings.broker_url:
        return CeleryDriver(settings)
    return ThreadDriver(settings)
