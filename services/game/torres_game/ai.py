"""How AI seats get to move: a small driver interface behind the ``ai_turns`` outbox.

Whenever an append leaves an AI seat to move, the same transaction inserts an ``ai_turns`` row
(game, seat, version), so a turn can never be lost even if the process dies right after the
commit. After the commit the service calls :meth:`AiDriver.turn_due`. A driver must eventually
submit one action through the normal append path with ``expected_version=version`` and the
deterministic command id ``ai:<game>:<version>`` (see :func:`ai_command_id`): a duplicate
delivery is then harmless (the store returns the original result) and a stale one gets a
conflict. The AI-worker service plugs Celery in here by implementing ``turn_due`` as
``task.delay(game_id, seat, version)`` and draining :meth:`EventStore.pending_ai_turns` on start.

The process that appends plays (or publishes) the turn it made due; that includes a standalone enforcer
(``python -m torres_game enforce`` builds the configured driver too). A row nobody takes up that way (its writer
only records turns, or died right after the commit) is not lost: the in-process drivers adopt due rows whoever
wrote them (:class:`BackgroundDriver`), and under Celery the AI worker's sweeper re-publishes them.
"""

from __future__ import annotations

import importlib
import logging
import queue
import random
import threading
import time
from collections import OrderedDict
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from torres_service.wakeups import WakeHub

    from .service import GameService
    from .store.base import AiTurn

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

    Where turns come from: this process's appends (:meth:`turn_due`), the outbox rows pending at start (left by
    an earlier process), and, when ``adopts``, rows that another process wrote and nobody plays: a standalone
    enforcer that only records turns, a process killed between its commit and its driver. Those are found by an
    outbox thread that re-reads the pending rows when the hub reports a change of any game (on PostgreSQL every
    process's appends notify; at most one read per ``notice_gap`` seconds however busy the games are) and every
    ``rescan_every`` seconds anyway (SQLite has no notices between processes, and a notice can be missed). A row
    another process wrote is normally being played by that process's own driver, so this one adopts it only after
    seeing it stay due for ``adopt_after`` seconds: the writer keeps its turns (no bot thinks twice about the same
    move), and a turn whose writer will never play it waits about that long. Several processes adopting the same
    row is harmless (the command id), only wasted work.

    Within the process, a (game, version) is queued once, and rows of a game whose turn is queued or being
    played here are left alone (they are that turn's continuation, or stale).
    """

    thread_name = "torres-ai"
    adopts = True  # take up due rows other processes wrote (False: someone else does, e.g. Celery's sweeper)
    adopt_after = 3.0
    rescan_every = 5.0
    notice_gap = 1.0
    read_limit = 1000
    _SETTLED = 4096  # turns played here recently, remembered so that a read that raced the play skips them

    def __init__(self, delay: float = 0.0) -> None:
        self.delay = delay  # demo pacing: seconds to wait before each AI action (TORRES_AI_DELAY)
        self._queue: queue.Queue[tuple[str, int, int] | None] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._service: GameService | None = None
        self._lock = threading.Lock()
        self._keys: set[tuple[str, int]] = set()  # (game, version) queued or being played here
        self._games: dict[str, int] = {}  # game -> how many of its turns are queued or being played here
        self._settled: OrderedDict[tuple[str, int], None] = OrderedDict()
        self._seen: dict[tuple[str, int], float] = {}  # other processes' due rows -> when first seen (monotonic)
        self._outbox: threading.Thread | None = None
        self._hub: WakeHub | None = None
        self._closing = threading.Event()
        self._wake = threading.Event()
        self._read_at = 0.0  # monotonic time of the next outbox read
        self._last_read = 0.0

    def play(self, service: GameService, game_id: str, seat: int, version: int) -> None:
        raise NotImplementedError

    def start(self, service: GameService) -> None:
        self._service = service
        self._thread = threading.Thread(target=self._run, name=self.thread_name, daemon=True)
        self._thread.start()
        if self.adopts:  # watch first: a row written while the pending ones are read is noticed
            self._read_at = time.monotonic() + self.rescan_every
            self._hub = service.hub
            self._hub.watch(self._noticed)
        self.queue_pending(service)
        if self.adopts:
            self._outbox = threading.Thread(target=self._watch_outbox, name=f"{self.thread_name}-outbox",
                                            daemon=True)
            self._outbox.start()

    def queue_pending(self, service: GameService) -> None:
        try:
            for turn in service.store.pending_ai_turns(limit=10_000):
                self.turn_due(turn.game_id, turn.seat, turn.version)
        except Exception:  # the rows stay due: a restart or a sweeper picks them up
            log.exception("could not read the AI outbox at start")

    def turn_due(self, game_id: str, seat: int, version: int) -> None:
        with self._lock:
            if (game_id, version) in self._keys:
                return
            self._keys.add((game_id, version))
            self._games[game_id] = self._games.get(game_id, 0) + 1
        self._queue.put((game_id, seat, version))

    def close(self) -> None:
        if self._outbox is not None:
            self._closing.set()
            self._wake.set()
            self._outbox.join(timeout=10)
            self._outbox = None
        if self._hub is not None:
            self._hub.unwatch(self._noticed)
            self._hub = None
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
            settled = False
            try:
                if item is None:
                    return
                if self.delay:
                    time.sleep(self.delay)
                self.play(self._service, *item)
                settled = True
            except Exception as exc:  # a bot or a transient database error must not end the thread
                assert item is not None
                game_id, seat, version = item
                log.warning("AI turn failed; the outbox keeps it due", exc_info=True, extra={
                    "game_id": game_id, "seat": seat, "version": version, "error": repr(exc)})
            finally:
                if item is not None:
                    self._done(item[0], item[2], settled)
                self._queue.task_done()

    def _done(self, game_id: str, version: int, settled: bool) -> None:
        """The turn left this process: played (remembered a while), or failed (due again, so adoptable later)."""
        with self._lock:
            self._keys.discard((game_id, version))
            left = self._games.get(game_id, 1) - 1
            if left:
                self._games[game_id] = left
            else:
                self._games.pop(game_id, None)
            if settled:
                self._settled[(game_id, version)] = None
                while len(self._settled) > self._SETTLED:
                    self._settled.popitem(last=False)

    # -- adopting the turns other processes left due ----------------------------------------------------

    def _noticed(self, game_id: str | None, notice: Any) -> None:
        """The hub's watcher (the listener's thread: must not block). A game moved somewhere, or notices may
        have been missed (``None``): read the outbox soon, unless the notice cannot concern a turn to adopt."""
        if notice is not None:
            if getattr(notice, "to_move", None) is None:
                return  # the game is over (or between seats): no turn is due
            with self._lock:
                if notice.game_id in self._games:
                    return  # its turn is played here; the notice is that turn's own append
        self._read_soon(time.monotonic())

    def _read_soon(self, at: float) -> None:
        with self._lock:
            self._read_at = min(self._read_at, at)
        self._wake.set()

    def _watch_outbox(self) -> None:
        assert self._service is not None
        store = self._service.store
        failing = False
        self._last_read = time.monotonic()
        while not self._closing.is_set() and not store.closed:
            with self._lock:
                at = max(self._read_at, self._last_read + self.notice_gap)
            delay = at - time.monotonic()
            if delay > 0:
                self._wake.wait(delay)
                self._wake.clear()
                continue
            self._last_read = time.monotonic()
            with self._lock:
                self._read_at = self._last_read + self.rescan_every
            try:
                soonest = self._adopt(store.pending_ai_turns(limit=self.read_limit))
                failing = False
            except Exception:  # the database away: say so once, keep the rows for the next read
                if not failing and not store.closed:
                    log.warning(f"could not read the AI outbox; retrying every {self.rescan_every} s", exc_info=True)
                failing = True
                continue
            if soonest is not None:
                self._read_soon(soonest)

    def _adopt(self, turns: list[AiTurn]) -> float | None:
        """Queue the due rows that no turn of this process covers and that stayed due ``adopt_after`` seconds
        since this process first saw them; return when the next of the others will have (None: no other)."""
        now = time.monotonic()
        adopted: list[AiTurn] = []
        soonest: float | None = None
        with self._lock:
            seen: dict[tuple[str, int], float] = {}
            for turn in turns:
                key = (turn.game_id, turn.version)
                if key in self._settled or turn.game_id in self._games:
                    continue
                first = seen[key] = self._seen.get(key, now)
                if now - first >= self.adopt_after:
                    adopted.append(turn)
                else:
                    ready = first + self.adopt_after
                    soonest = ready if soonest is None else min(soonest, ready)
            self._seen = seen  # rows no longer due are forgotten
        for turn in adopted:
            log.info("adopting an AI turn another process left due", extra={
                "game_id": turn.game_id, "seat": turn.seat, "version": turn.version})
            self.turn_due(turn.game_id, turn.seat, turn.version)
        return soonest


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
