"""Post-game analyses: the one home of how a finished game's analysis is requested, queued, advanced and read.

**A projection beside the log.** An analysis is derived from a finished game's event log (every turn's expected
final score shares, the turns that lost the most with a better turn, the phase scorings explained), so it is never
an event: it lives in the ``analyses`` table, keyed by game, analysis engine version and depth, and a better engine
(a new version) adds analyses beside the old ones. Asked of a game still running it is refused (409
``game_running``): every seat's chances and a better turn would be a cheating aid.

**The engine is the AI worker's.** The game service names no module of it: an installed AI worker declares its
engine as the entry point ``engine`` of :data:`PLUGIN_GROUP` (an object with ``version``, ``depths`` and
``advance``, :class:`Engine`). Without one, requests answer 503 ``analysis_unavailable``.

**Queued behind the humans.** A request writes the ``pending`` row (the row is the work queue: a lost message loses
nothing) and tells the AI driver (``analysis_due``): the Celery driver publishes it to the AI workers' *bulk*
queue, which a worker serves only when no human's AI turn is waiting; the in-process driver runs it when no AI turn
is queued. Either way the work is done in slices of bounded CPU time (:func:`advance`: the engine's next units of
work, a fraction of a second each, their results kept on the row), each slice queued again behind whatever AI turns
arrived meanwhile, so a human's AI turn waits at most for the rest of one slice. The last slice stores the result
and, for a tenant with webhooks, the ``analysis.ready`` webhook in the same transaction.

The AI worker enters the game service for analyses through this module (as it does for turns through ``ai_turns``).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from functools import cache
from importlib.metadata import entry_points
from typing import Any, Protocol

from torres_online import lifecycle as lc
from torres_online.lifecycle import format_time

from .access import Access, Credentials
from .errors import AnalysisNotFound, AnalysisUnavailable, GameRunning, ValidationFailed
from .folding import GameStates
from .metrics import ANALYSIS_SLICE_CPU, ANALYSIS_SLICES
from .store.base import AnalysisRow, EventStore
from .webhooks import WRITTEN, analysis_ready

log = logging.getLogger(__name__)

#: Where an installed AI worker declares its analysis engine (its pyproject's entry points).
PLUGIN_GROUP = "torres_game.analysis"
DEPTHS = ("quick", "deep")


class Engine(Protocol):
    """What the service needs of an analysis engine."""

    version: str
    depths: dict[str, str]  # depth -> what it runs and what it costs, in words

    def advance(self, events: Sequence[lc.LoggedEvent], seed: int, game_id: str, depth: str,
                progress: list[dict[str, Any]], cpu_budget: float
                ) -> tuple[list[dict[str, Any]], dict[str, Any] | None]: ...

    def turns_done(self, progress: list[dict[str, Any]]) -> int: ...


class AnalysisDriver(Protocol):
    def analysis_due(self, game_id: str, depth: str) -> None:
        """A pending analysis (its row written) should advance. Must not block."""


@cache
def installed_engine() -> Engine | None:
    """The installed AI worker's analysis engine, or None."""
    try:
        return next(iter(entry_points(group=PLUGIN_GROUP, name="engine"))).load()  # type: ignore[no-any-return]
    except (StopIteration, ImportError):
        log.info("no analysis engine installed; analyses answer 503")
        return None


def body_of(row: AnalysisRow, engine: Engine) -> dict[str, Any]:
    """An analysis as the API answers it: status, cost and, once ready, the result."""
    return {
        "game_id": row.game_id, "engine_version": row.engine_version, "depth": row.depth, "status": row.status,
        "cost": engine.depths.get(row.depth, ""), "requested_at": row.requested_at,
        "completed_at": row.completed_at, "cpu_seconds": round(row.cpu_seconds, 3),
        "turns_done": len(row.result["turns"]) if row.result else engine.turns_done(row.progress),
        "result": row.result,
    }


@dataclass(eq=False)
class AnalysisDesk:
    """Requests and reads of analyses, behind the read gate of every game read (:meth:`Access.check_read`)."""

    store: EventStore
    access: Access
    games: GameStates
    driver: AnalysisDriver
    engine: Callable[[], Engine | None] = installed_engine
    clock: Callable[[], datetime] = lambda: datetime.now(UTC)

    def _ready_engine(self, game_id: str, creds: Credentials, depth: str) -> Engine:
        if depth not in DEPTHS:
            raise ValidationFailed(f"depth must be one of {', '.join(DEPTHS)}", errors={"depth": ["unknown depth"]})
        caller = self.access.caller(creds)  # 401 for credentials nobody holds, whether the game exists or not
        self.access.check_read(self.games.info(game_id), caller)  # then 403/404, before anything else
        if not self.games.current(game_id).over:
            raise GameRunning("the game is still running: its analysis (every seat's chances, better turns) would "
                              "be a cheating aid; ask again once it is over")
        engine = self.engine()
        if engine is None:
            raise AnalysisUnavailable("no analysis engine is installed beside this service")
        return engine

    def request(self, game_id: str, creds: Credentials, *, depth: str) -> tuple[dict[str, Any], bool]:
        """Request the analysis (anyone who may read the game); returns it and whether it was new. A pending one is
        handed to the driver again (harmless: slices are idempotent), so a lost message is a request away."""
        engine = self._ready_engine(game_id, creds, depth)
        before = self.store.get_analysis(game_id, engine.version, depth)
        row = before or self.store.request_analysis(game_id, engine.version, depth, now=self.clock())
        if row.status == "pending":
            self.driver.analysis_due(game_id, depth)
        return body_of(row, engine), before is None

    def read(self, game_id: str, creds: Credentials, *, depth: str) -> dict[str, Any]:
        """The analysis at the installed engine's version: pending (with the turns done) or ready."""
        engine = self._ready_engine(game_id, creds, depth)
        row = self.store.get_analysis(game_id, engine.version, depth)
        if row is None:
            raise AnalysisNotFound(f"no {depth} analysis of game {game_id} was requested: POST it first")
        return body_of(row, engine)


class Outcome(StrEnum):
    DONE = "done"  # stored, with its webhook
    CONTINUES = "continues"  # a slice done; queue the next
    SETTLED = "settled"  # nothing to do: ready already, unknown, or another engine version's


@dataclass
class SliceResult:
    outcome: Outcome
    turns: int = 0
    cpu_seconds: float = 0.0


def advance(store: EventStore, engine: Engine, game_id: str, depth: str, *, cpu_budget: float,
            clock: Callable[[], datetime] = lambda: datetime.now(UTC)) -> SliceResult:
    """One slice of a pending analysis: the next turns until ``cpu_budget`` seconds of CPU are spent, kept on the
    row; the last slice stores the result (and the webhook). Any driver calls this, in-process or Celery. Two
    slices racing on one row compute the same turns (the engine is deterministic); the store keeps the longer
    progress and completes the row once."""
    row = store.get_analysis(game_id, engine.version, depth)
    record = store.get_game(game_id)
    secret = store.get_secret(game_id)
    if row is None or row.status != "pending" or record is None or secret is None:
        ANALYSIS_SLICES.labels(depth, Outcome.SETTLED).inc()
        return SliceResult(Outcome.SETTLED)
    started = time.process_time()
    progress, result = engine.advance(store.read(game_id), secret.seed, game_id, depth, row.progress, cpu_budget)
    spent = time.process_time() - started
    ANALYSIS_SLICE_CPU.labels(depth).observe(spent)
    if result is None:
        store.analysis_progress(row, progress, spent, now=clock())
        ANALYSIS_SLICES.labels(depth, Outcome.CONTINUES).inc()
        return SliceResult(Outcome.CONTINUES, len(progress), spent)
    now = clock()
    hooks = [analysis_ready(record, engine.version, depth, format_time(now))] if record.webhooks else []
    if store.complete_analysis(row, result, spent, now=now, webhooks=hooks):
        for hook in hooks:
            WRITTEN.labels(hook.type).inc()
        log.info("analysis ready", extra={"game_id": game_id, "depth": depth, "engine_version": engine.version,
                                          "cpu_s": round(row.cpu_seconds + spent, 3)})
    ANALYSIS_SLICES.labels(depth, Outcome.DONE).inc()
    return SliceResult(Outcome.DONE, len(progress), spent)
