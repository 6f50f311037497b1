"""How AI seats get to move: a small driver interface behind the ``ai_turns`` outbox.

Whenever an append leaves an AI seat to move, the same transaction inserts an ``ai_turns`` row
(game, seat, version), so a turn can never be lost even if the process dies right after the
commit. After the commit the service calls :meth:`AiDriver.turn_due`. A driver must eventually
submit one action through the normal append path with ``expected_version=version`` and the
deterministic command id ``ai:<game>:<version>`` (see :func:`ai_command_id`): a duplicate
delivery is then harmless (the store returns the original result) and a stale one gets a
conflict. The AI-worker service plugs Celery in here by implementing ``turn_due`` as
``task.delay(game_id, seat, version)`` and draining :meth:`EventStore.pending_ai_turns` on start.
"""

from __future__ import annotations

import importlib
import logging
import queue
import random
import threading
import time
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from .service import GameService

log = logging.getLogger(__name__)


def ai_command_id(game_id: str, version: int) -> str:
    return f"ai:{game_id}:{version}"


def log_enqueue_failure(game_id: str, seat: int, version: int, error: BaseException) -> None:
    """A due turn could not be handed to the AI workers (the broker is down, say). One structured line, no
    traceback: the cause is the broker, not this code, and the outbox row keeps the turn due for the sweeper."""
    log.warning("could not enqueue an AI turn; the outbox keeps it due for the sweeper", extra={
        "game_id": game_id, "seat": seat, "version": version, "error": f"{type(error).__name__}: {error}"})


class AiDriver(Protocol):
    def start(self, service: GameService) -> None:
        """Begin work; pick up turns left pending in the outbox by a previous process."""
        ...

    def turn_due(self, game_id: str, seat: int, version: int) -> None:
        """An AI seat is to move at ``version`` (already recorded in the outbox). Must not block."""
        ...

    def close(self) -> None: ...


class OutboxOnlyDriver:
    """Records due turns only (the outbox row is written by the append); an external worker plays."""

    def start(self, service: GameService) -> None:
        pass

    def turn_due(self, game_id: str, seat: int, version: int) -> None:
        pass

    def close(self) -> None:
        pass


class BackgroundDriver:
    """One daemon thread plays due AI turns in the order they became due; subclasses say how one is played.
    Pending outbox rows left by an earlier process are queued on start."""

    thread_name = "torres-ai"

    def __init__(self, delay: float = 0.0) -> None:
        self.delay = delay  # demo pacing: seconds to wait before each AI action (TORRES_AI_DELAY)
        self._queue: queue.Queue[tuple[str, int, int] | None] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._service: GameService | None = None

    def play(self, service: GameService, game_id: str, seat: int, version: int) -> None:
        raise NotImplementedError

    def start(self, service: GameService) -> None:
        self._service = service
        self._thread = threading.Thread(target=self._run, name=self.thread_name, daemon=True)
        self._thread.start()
        self.queue_pending(service)

    def queue_pending(self, service: GameService) -> None:
        try:
            for turn in service.store.pending_ai_turns(limit=10_000):
                self.turn_due(turn.game_id, turn.seat, turn.version)
        except Exception:  # the rows stay due: a restart or a sweeper picks them up
            log.exception("could not read the AI outbox at start")

    def turn_due(self, game_id: str, seat: int, version: int) -> None:
        self._queue.put((game_id, seat, version))

    def close(self) -> None:
        if self._thread is not None:
            self._queue.put(None)
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
                if item is None:
                    return
                if self.delay:
                    time.sleep(self.delay)
                self.play(self._service, *item)
            except Exception as exc:  # a bot or a transient database error must not end the thread
                assert item is not None
                game_id, seat, version = item
                log.warning("AI turn failed; the outbox keeps it due", exc_info=True, extra={
                    "game_id": game_id, "seat": seat, "version": version, "error": repr(exc)})
            finally:
                self._queue.task_done()


class RandomBotDriver(BackgroundDriver):
    """In-process stand-in for the AI worker: plays a uniformly random legal action."""

    thread_name = "torres-random-bot"

    def __init__(self, delay: float = 0.0, rng: random.Random | None = None) -> None:
        super().__init__(delay)
        self.rng = rng or random.Random()

    def play(self, service: GameService, game_id: str, seat: int, version: int) -> None:
        service.play_ai_turn(game_id, seat, version, choose=self.rng.choice)


# The AI worker's factory: Celery when a broker is configured, its real bots in-process otherwise. Named by
# string, not imported, because the AI worker depends on this package (not the other way round).
DEFAULT_PLUGIN = "torres_ai.driver:from_env"


def make_driver(kind: str, delay: float = 0.0) -> AiDriver:
    """The driver TORRES_AI_DRIVER names: "auto" (the AI worker's drivers when it is installed, else the
    random bot), "thread" (the random bot), "none" (outbox only) or "package.module:factory"."""
    if kind == "auto":
        try:
            return _plugin(DEFAULT_PLUGIN)
        except ImportError:
            log.info("torres_ai not installed; AI seats play uniformly random moves in-process")
            return RandomBotDriver(delay=delay)
    if kind == "thread":
        return RandomBotDriver(delay=delay)
    if kind == "none":
        return OutboxOnlyDriver()
    if ":" in kind:
        return _plugin(kind)
    raise ValueError(f"unknown AI driver {kind!r} (expected 'auto', 'thread', 'none' or 'module:factory')")


def _plugin(path: str) -> AiDriver:
    module, _, factory = path.partition(":")
    return getattr(importlib.import_module(module), factory)()
