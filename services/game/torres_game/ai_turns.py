"""AI turns: the one home of how an AI seat gets to move, and the AI worker's one door into the game service.

**The outbox.** Whenever an append leaves an AI seat to move, the same transaction inserts an ``ai_turns`` row
(game, seat, version), so a turn can never be lost even if the process dies right after the commit; the append
that consumes the version (or :func:`play_turn` finding the turn settled) closes it. After the commit the service
hands the turn to its driver (:class:`AiDriver`, ``turn_due``), which must not block.

**One way to play a turn.** Every driver ends in :func:`play_turn` with a ``decide`` function: the in-process
driver here (with the AI worker's bots, or the random stand-in when the worker is not installed) and the AI
worker's Celery task alike. It plays the seat's whole turn: each action is submitted on its own with
``expected_version`` = the version it was decided at and the command id ``ai:<game>:<version>``
(:func:`ai_command_id`), so a duplicate delivery appends nothing (the store returns the original result, or the
version moved on) and a stale one settles its row. While a thread plays a turn, the appends that leave the same
seat to move are not handed on: the thread plays them itself.

**Rows nobody takes up.** The process that appends hands the turn to its own driver. A row whose writer will not
play it (an enforcer that only records, a process killed after its commit, a broker that lost its queue) is found
by :func:`sweep`, on two schedules: the in-process driver adopts rows that stayed due ``adopt_after`` seconds
(:class:`BackgroundDriver`), and under Celery the AI worker's sweeper re-publishes them (``torres_ai.tasks``).

The AI worker (``torres_ai``) imports this module only: its bots are a ``decide``, its Celery driver a
:class:`BackgroundDriver` that publishes, its worker a service opened by :func:`open_service` (no listener).
"""

from __future__ import annotations

import importlib
import itertools
import logging
import queue
import random
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from importlib.metadata import entry_points
from typing import Any

import torres_rules as tr

from . import analyses
from .access import IN_PROCESS_AI, Credentials
from .config import Config
from .errors import CommandIdReused, GameOver, NotYourTurn, VersionConflict
from .service import AiDriver, GameService
from .store import open_store
from .store.base import AiTurn

log = logging.getLogger(__name__)

MAX_TURN_ACTIONS = 200  # a guard only: a Torres turn is a handful of actions
# The worker acts as this principal, not with a key: it holds the database itself (docs/security.md).
_AI = Credentials(principal=IN_PROCESS_AI)


def ai_command_id(game_id: str, version: int) -> str:
    return f"ai:{game_id}:{version}"


def log_enqueue_failure(game_id: str, seat: int, version: int, error: BaseException) -> None:
    """A due turn could not be handed to the AI workers (the broker is down, say). One structured line, no
    traceback: the cause is the broker, not this code, and the outbox row keeps the turn due for the sweeper."""
    log.warning("could not enqueue an AI turn; the outbox keeps it due for the sweeper", extra={
        "game_id": game_id, "seat": seat, "version": version, "error": f"{type(error).__name__}: {error}"})


def open_service(driver: AiDriver, config: Config | None = None) -> GameService:
    """A service for a process that only plays AI turns (a Celery worker, the sweeper): a small pool and no
    listener -- nobody waits on a game there, so it holds no LISTEN connection."""
    config = config or Config.from_env()
    store = open_store(config.database_url, migrations_dir=config.migrations_dir, pool_min=1, pool_max=2)
    return GameService(store, config, driver, listen=False)


# -- playing a turn -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Decision:
    """What ``decide`` is asked. A bot must look at ``tr.view(state, seat)`` only (the AI worker's bots do)."""

    game_id: str
    seat: int
    version: int
    level: str | None
    state: tr.State


Decide = Callable[[Decision], dict[str, Any]]


def random_decide(rng: random.Random | None = None) -> Decide:
    """The stand-in bot when the AI worker is not installed: a uniformly random legal action."""
    rng = rng or random.Random()
    return lambda decision: rng.choice(tr.legal_actions(decision.state))


class Outcome(StrEnum):
    PLAYED = "played"
    DUPLICATE = "duplicate"  # this command id was already appended (a redelivery raced the first)
    STALE = "stale"  # the game moved on, ended, or it is not this AI seat's move
    MISSING = "missing"


@dataclass
class TurnResult:
    outcome: Outcome
    actions: int = 0  # actions appended by this call
    version: int = 0  # the version it started from (later than asked when it resumed a turn under way)
    level: str | None = None
    decision_seconds: float = 0.0


_playing = threading.local()  # .turn: the (game, seat) whose turn this thread plays (BackgroundDriver.continues)


def play_turn(
    service: GameService, game_id: str, seat: int, version: int, decide: Decide, *, delay: float = 0.0,
    sleep: Callable[[float], None] = time.sleep,
) -> TurnResult:
    """Play the AI seat's whole turn from ``version``, or from where it stands if it is under way (a redelivered
    or swept task after a worker died mid-turn: it resumes); or settle the row when the turn is no longer due.
    ``delay`` paces each action for people watching. Errors propagate with the row still due."""
    record = service.store.get_game(game_id)
    if record is None:
        return TurnResult(Outcome.MISSING, version=version)
    # An AI seat, or a human seat the AI took over after a timeout, at the level the service says.
    level = service.queries.ai_seat_level(game_id, seat)
    current, state = service.games.state_at(game_id)
    result = TurnResult(Outcome.STALE, version=current, level=level)
    stale = level is None or current < version or record.status == "over" or tr.is_over(state) or state.to_move != seat
    if stale or current != version:  # settled; or a turn under way, resumed below from its current row
        service.store.complete_ai_turn(game_id, version)
    if stale:
        return result
    _playing.turn = (game_id, seat)
    try:
        for _ in range(MAX_TURN_ACTIONS):
            if delay:
                sleep(delay)
            started = time.perf_counter()
            action = decide(Decision(game_id, seat, current, level, state))
            result.decision_seconds += time.perf_counter() - started
            try:
                submitted = service.commands.submit_action(game_id, _AI, seat=seat, action=action,
                                                           expected_version=current,
                                                           command_id=ai_command_id(game_id, current))
            except CommandIdReused:  # a racing twin appended a (differently timed) decision for this version
                result.outcome = Outcome.DUPLICATE
                break
            except (VersionConflict, NotYourTurn, GameOver):  # a twin is playing this turn: leave it to it
                break
            if submitted.replayed:
                result.outcome = Outcome.DUPLICATE
                break
            result.outcome = Outcome.PLAYED
            result.actions += 1
            current, state = service.games.state_at(game_id)
            if tr.is_over(state) or state.to_move != seat:
                break  # the last append closed our row and wrote the next seat's (handed to the driver)
    finally:
        _playing.turn = None
    return result


# -- the outbox: rows nobody took up --------------------------------------------------------------------------


def sweep(
    turns: Iterable[AiTurn], hand_on: Callable[[AiTurn], object], *, older_than: float,
    claim: Callable[[AiTurn], bool] = lambda _: True,
) -> tuple[int, float | None]:
    """Hand on every due row at least ``older_than`` seconds old (by its ``created_at``) that ``claim`` grants;
    return how many, and in how many seconds the youngest skipped row comes of age (None: none skipped).
    The grace lets a row's writer play it first; ``claim`` says whether this sweeper may take it now (the Celery
    sweeper's Redis marker sends a row at most once a period across processes)."""
    now = datetime.now(UTC)
    sent, soonest = 0, None
    for turn in turns:
        age = (now - datetime.fromisoformat(turn.created_at)).total_seconds() if turn.created_at else older_than
        if age < older_than:
            wait = older_than - age
            soonest = wait if soonest is None else min(soonest, wait)
        elif claim(turn):
            hand_on(turn)
            sent += 1
    return sent, soonest


# -- drivers --------------------------------------------------------------------------------------------------


class OutboxOnlyDriver:
    """Records due turns only (the outbox row is written by the append); another process plays them."""

    def start(self, service: GameService) -> None:
        pass

    def turn_due(self, game_id: str, seat: int, version: int) -> None:
        pass

    def analysis_due(self, game_id: str, depth: str) -> None:
        pass

    def close(self) -> None:
        pass


class BackgroundDriver:
    """One daemon thread plays due AI turns with ``decide`` (:func:`play_turn`), in the order they became due;
    the AI worker's Celery driver subclasses it and publishes instead (:meth:`play`).

    Where turns come from: this process's appends (:meth:`turn_due`), the rows pending at start (left by an
    earlier process), and, when ``adopts``, rows another process wrote and nobody plays. Those are found by an
    outbox thread that :func:`sweep`\\ s the pending rows when the hub reports a change of any game (on PostgreSQL
    every process's appends notify; at most one read per ``notice_gap`` seconds) and every ``rescan_every``
    seconds anyway (SQLite has no notices between processes, and a notice can be missed). A row is adopted once
    it is ``adopt_after`` seconds old: its writer plays it first (no bot thinks twice about the same move), and a
    turn whose writer will never play it waits about that long. Several processes adopting one row is harmless
    (the command id), only wasted work. Within the process a (game, version) is queued once, and rows of a game
    whose turn is queued or being played here are left alone (that turn's continuation, or stale).
    """

    thread_name = "torres-ai"
    #: CPU seconds of one slice of a post-game analysis: what an AI turn that becomes due meanwhile may wait.
    analysis_slice = 0.2
    adopts = True  # take up due rows other processes wrote (False: someone else does, e.g. Celery's sweeper)
    adopt_after = 3.0
    rescan_every = 5.0
    notice_gap = 1.0
    read_limit = 1000
    _SETTLED = 4096  # turns played here recently, remembered so that a read that raced the play skips them

    def __init__(self, decide: Decide | None = None, delay: float = 0.0) -> None:
        self.decide = decide or random_decide()
        self.delay = delay  # demo pacing: seconds to wait before each AI action (TORRES_AI_DELAY)
        # Turns first (priority 0), then analysis slices (1), then the closing sentinel (2): an AI turn never waits
        # behind a queued analysis, at most behind the one slice being computed.
        self._queue: queue.PriorityQueue[tuple[int, int, Any]] = queue.PriorityQueue()
        self._order = itertools.count()
        self._analyses: set[tuple[str, str]] = set()  # (game, depth) queued here
        self._thread: threading.Thread | None = None
        self._service: GameService | None = None
        self._lock = threading.Lock()
        self._keys: set[tuple[str, int]] = set()  # (game, version) queued or being played here
        self._games: dict[str, int] = {}  # game -> how many of its turns are queued or being played here
        self._settled: OrderedDict[tuple[str, int], None] = OrderedDict()
        self._outbox: threading.Thread | None = None
        self._closing = threading.Event()
        self._wake = threading.Event()
        self._read_at = 0.0  # monotonic time of the next outbox read

    @staticmethod
    def continues(game_id: str, seat: int) -> bool:
        """This thread plays that seat's turn (:func:`play_turn`): the turn its own append made due is its own."""
        return getattr(_playing, "turn", None) == (game_id, seat)

    def play(self, service: GameService, game_id: str, seat: int, version: int) -> None:
        play_turn(service, game_id, seat, version, self.decide, delay=self.delay)

    def analyse(self, service: GameService, game_id: str, depth: str) -> None:
        """One slice of the analysis, in this thread; the next slice queued behind the AI turns due by then."""
        engine = service.analyses.engine()
        if engine is None:
            return
        done = analyses.advance(service.store, engine, game_id, depth, cpu_budget=self.analysis_slice)
        if done.outcome == analyses.Outcome.CONTINUES and not self._closing.is_set():
            self.analysis_due(game_id, depth)

    def analysis_due(self, game_id: str, depth: str) -> None:
        with self._lock:
            if (game_id, depth) in self._analyses:
                return
            self._analyses.add((game_id, depth))
        self._queue.put((1, next(self._order), (game_id, depth)))

    def start(self, service: GameService) -> None:
        self._service = service
        self._thread = threading.Thread(target=self._run, name=self.thread_name, daemon=True)
        self._thread.start()
        if self.adopts:  # watch first: a row written while the pending ones are read is noticed
            self._read_at = time.monotonic() + self.rescan_every
            service.hub.watch(self._noticed)
        self.queue_pending(service)
        if self.adopts:
            self._outbox = threading.Thread(target=self._watch_outbox, name=f"{self.thread_name}-outbox",
                                            daemon=True)
            self._outbox.start()

    def queue_pending(self, service: GameService) -> None:
        try:
            for turn in service.store.pending_ai_turns(limit=10_000):
                self.turn_due(turn.game_id, turn.seat, turn.version)
            for row in service.store.pending_analyses(limit=10_000):
                self.analysis_due(row.game_id, row.depth)
        except Exception:  # the rows stay due: a restart or a sweeper picks them up
            log.exception("could not read the AI outbox at start")

    def turn_due(self, game_id: str, seat: int, version: int) -> None:
        if self.continues(game_id, seat):
            return
        with self._lock:
            if (game_id, version) in self._keys:
                return
            self._keys.add((game_id, version))
            self._games[game_id] = self._games.get(game_id, 0) + 1
        self._queue.put((0, next(self._order), (game_id, seat, version)))

    def close(self) -> None:
        if self._outbox is not None:
            self._closing.set()
            self._wake.set()
            self._outbox.join(timeout=10)
            self._outbox = None
        if self.adopts and self._service is not None:
            self._service.hub.unwatch(self._noticed)
        if self._thread is not None:
            self._closing.set()  # no analysis slice is queued again
            self._queue.put((2, next(self._order), None))
            self._thread.join(timeout=10)
            self._thread = None

    def idle(self) -> bool:
        """True when nothing is queued or running (tests wait on it)."""
        return self._queue.unfinished_tasks == 0

    def _run(self) -> None:
        assert self._service is not None
        while (item := self._queue.get()[2]) is not None:
            if len(item) == 2:
                self._analyse(*item)
                continue
            settled = False
            try:
                self.play(self._service, *item)
                settled = True
            except Exception as exc:  # a bot or a transient database error must not end the thread
                game_id, seat, version = item
                log.warning("AI turn failed; the outbox keeps it due", exc_info=True, extra={
                    "game_id": game_id, "seat": seat, "version": version, "error": repr(exc)})
            finally:
                self._done(item[0], item[2], settled)
                self._queue.task_done()
        self._queue.task_done()

    def _analyse(self, game_id: str, depth: str) -> None:
        assert self._service is not None
        with self._lock:
            self._analyses.discard((game_id, depth))
        try:
            if not self._closing.is_set():
                self.analyse(self._service, game_id, depth)
        except Exception as exc:  # the row stays pending: a request or a restart takes it up again
            log.warning("analysis slice failed; the analysis stays pending", exc_info=True, extra={
                "game_id": game_id, "depth": depth, "error": repr(exc)})
        finally:
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
        last_read = time.monotonic()
        while not self._closing.is_set() and not store.closed:
            with self._lock:
                at = max(self._read_at, last_read + self.notice_gap)
            if (delay := at - time.monotonic()) > 0:
                self._wake.wait(delay)
                self._wake.clear()
                continue
            last_read = time.monotonic()
            with self._lock:
                self._read_at = last_read + self.rescan_every
            try:
                turns = store.pending_ai_turns(limit=self.read_limit)
                failing = False
            except Exception:  # the database away: say so once, keep the rows for the next read
                if not failing and not store.closed:
                    log.warning(f"could not read the AI outbox; retrying every {self.rescan_every} s", exc_info=True)
                failing = True
                continue
            with self._lock:
                turns = [t for t in turns
                         if (t.game_id, t.version) not in self._settled and t.game_id not in self._games]
            _, soonest = sweep(turns, self._adopt, older_than=self.adopt_after)
            if soonest is not None:
                self._read_soon(last_read + soonest)

    def _adopt(self, turn: AiTurn) -> None:
        log.info("adopting an AI turn another process left due", extra={
            "game_id": turn.game_id, "seat": turn.seat, "version": turn.version})
        self.turn_due(turn.game_id, turn.seat, turn.version)


# An installed AI worker declares its driver factory here (its pyproject's entry points): the game service names
# no package of the worker, which depends on it (not the other way round).
PLUGIN_GROUP = "torres_game.ai_drivers"


def make_driver(kind: str, delay: float = 0.0) -> AiDriver:
    """The driver TORRES_AI_DRIVER names: "auto" (the installed AI worker's, entry point ``auto`` of
    :data:`PLUGIN_GROUP`, else the random bot), "thread" (the random bot), "none" (outbox only) or
    "package.module:factory"."""
    if kind == "auto":
        try:
            return next(iter(entry_points(group=PLUGIN_GROUP, name="auto"))).load()()  # type: ignore[no-any-return]
        except (StopIteration, ImportError):
            log.info("no AI worker installed; AI seats play uniformly random moves in-process")
            return BackgroundDriver(delay=delay)
    if kind == "thread":
        return BackgroundDriver(delay=delay)
    if kind == "none":
        return OutboxOnlyDriver()
    if ":" in kind:
        return _plugin(kind)
    raise ValueError(f"unknown AI driver {kind!r} (expected 'auto', 'thread', 'none' or 'module:factory')")


def _plugin(path: str) -> AiDriver:
    module, _, factory = path.partition(":")
    return getattr(importlib.import_module(module), factory)()
