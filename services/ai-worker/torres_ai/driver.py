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
import queue
import threading
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING

from .bots import LocalPlanMemory
from .config import Settings
from .turns import LevelBots, play_due_turn

if TYPE_CHECKING:
    from celery import Celery

    from torres_game.ai import AiDriver
    from torres_game.service import GameService

log = logging.getLogger(__name__)
_STOP = None


class ThreadDriver:
    """One daemon thread plays due AI turns with the real bots, in the order they became due."""

    def __init__(self, settings: Settings | None = None, *, delay: float = 0.0) -> None:
        self.settings = settings or Settings()
        self.delay = delay  # demo pacing: seconds to wait before each AI action (TORRES_AI_DELAY)
        self.bots = LevelBots(self.settings, LocalPlanMemory())
        self._queue: queue.Queue[tuple[str, int, int] | None] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._service: GameService | None = None

    def start(self, service: GameService) -> None:
        self._service = service
        self._thread = threading.Thread(target=self._run, name="torres-ai-bots", daemon=True)
        self._thread.start()
        for turn in service.store.pending_ai_turns(limit=10_000):
            self.turn_due(turn.game_id, turn.seat, turn.version)

    def turn_due(self, game_id: str, seat: int, version: int) -> None:
        self._queue.put((game_id, seat, version))

    def close(self) -> None:
        if self._thread is not None:
            self._queue.put(_STOP)
            self._thread.join(timeout=10)
            self._thread = None

    def idle(self) -> bool:
        """True when nothing is queued or running (tests wait on it)."""
        return self._queue.unfinished_tasks == 0

    def _run(self) -> None:
        assert self._service is not None
        while True:
            item = self._queue.get()
            try:
                if item is _STOP:
                    return
                if self.delay:
                    time.sleep(self.delay)
                play_due_turn(self._service, *item, self.bots)
            except Exception:  # a bot or a transient database error must not end the thread
                log.exception("AI turn failed; the outbox keeps it due", extra={"turn": item})
            finally:
                self._queue.task_done()


class CeleryDriver:
    """Publishes ``torres_ai.play_turn(game_id, seat, version)`` for every due turn; never blocks.

    ``synchronous=True`` publishes in the caller's thread (the worker uses it: a task is only done once
    the next turn it made due is on the queue).
    """

    def __init__(self, settings: Settings | None = None, *, synchronous: bool = False, celery: Celery | None = None
                 ) -> None:
        from .celery_app import make_app

        self.settings = settings or Settings.from_env()
        self.synchronous = synchronous
        self.celery = celery or make_app(self.settings)
        self._queue: queue.Queue[tuple[str, int, int] | None] = queue.Queue()
        self._thread: threading.Thread | None = None

    def start(self, service: GameService) -> None:
        if not self.synchronous:
            self._thread = threading.Thread(target=self._run, name="torres-ai-publisher", daemon=True)
            self._thread.start()
        try:
            for turn in service.store.pending_ai_turns(limit=10_000):
                self.turn_due(turn.game_id, turn.seat, turn.version)
        except Exception:
            log.exception("could not read the AI outbox at start; the sweeper will")

    def turn_due(self, game_id: str, seat: int, version: int) -> None:
        if self.synchronous:
            self.publish(game_id, seat, version)
        else:
            self._queue.put((game_id, seat, version))

    def publish(self, game_id: str, seat: int, version: int) -> bool:
        from .celery_app import publish_turn

        try:
            publish_turn(self.celery, self.settings.queue, game_id, seat, version)
            return True
        except Exception:
            log.exception("could not enqueue an AI turn; the sweeper will", extra={"game_id": game_id,
                                                                                   "version": version})
            return False

    def close(self) -> None:
        if self._thread is not None:
            self._queue.put(_STOP)
            self._thread.join(timeout=10)
            self._thread = None

    def idle(self) -> bool:
        return self._queue.unfinished_tasks == 0

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            try:
                if item is _STOP:
                    return
                self.publish(*item)
            finally:
                self._queue.task_done()


def from_env(env: Mapping[str, str] | None = None) -> AiDriver:
    """The driver the environment asks for: Celery when a broker URL is set, else in-process bots."""
    env = os.environ if env is None else env
    settings = Settings.from_env(env)
    if settings.broker_url:
        return CeleryDriver(settings)
    return ThreadDriver(settings, delay=float(env.get("TORRES_AI_DELAY", "0")))
