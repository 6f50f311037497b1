"""Play a due AI turn through the game service: the one code path of every driver (thread or Celery).

**A whole turn per task.** The task for ``(game, seat, version)`` decides and appends the seat's action, and
keeps going while the same seat is to move: the planning bots decide the whole turn at its first decision
and replay the plan on the later ones (a card drawn when buying shows a view the plan did not foresee, and
the bot re-plans there, in the same task). It stops when another seat is to move or the game is over.

**Exactly-once comes from the game service, not from us.** Every action is submitted on its own with
``expected_version`` = the version it was decided at and the deterministic command id ``ai:<game>:<version>``,
exactly as when each action was a task. A duplicate delivery finds the version moved on (stale) or, if it
raced the first, the store returns the first append for that command id; either way it stops. Each append
also moves the outbox row along atomically (the row of the version it consumed is closed, one for the new
version is written while an AI seat is still due), so at every instant the row of the current version is due.

**A worker killed halfway through a turn.** The actions already appended stay (each is its own
transaction); the task's message was not acknowledged (acks-late), so Redis delivers it again, and the
outbox sweeper re-sends the due row anyway. Either task finds the same seat still to move at a later
version and *resumes* the turn from there (the plan is in the shared plan memory, so it is the same plan);
both racing is harmless (the command ids above). A task that finds another seat to move, or the game over,
closes its outbox row and does nothing.

**Infrastructure errors are retried, never played around.** A Redis or database error while the bot
decides (the plan memory is in Redis) is retried here with backoff, then by Celery; the decision is recomputed,
so the move played is the bot's own. Only a genuine bot bug (an exception of another kind, or an illegal
action) falls back to a random legal action, and that is logged as an error and counted in
``torres_ai_fallbacks_total{cause}``.
"""

from __future__ import annotations

import logging
import random
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING

import psycopg
import redis
from celery.exceptions import SoftTimeLimitExceeded, TimeLimitExceeded

import torres_rules as tr

from . import metrics
from .bots import Action, Bot, PlanMemory, make_bot
from .config import Settings

if TYPE_CHECKING:
    from torres_game.service import GameService

log = logging.getLogger(__name__)

# Trouble outside the bot: a decision that met one of these is retried, never replaced by a random move.
INFRASTRUCTURE_ERRORS: tuple[type[BaseException], ...] = (
    redis.RedisError, OSError, psycopg.Error, sqlite3.Error, SoftTimeLimitExceeded, TimeLimitExceeded,
)
MAX_TURN_ACTIONS = 200  # a guard only: a Torres turn is a handful of actions


class Outcome(StrEnum):
    PLAYED = "played"
    DUPLICATE = "duplicate"  # this command id was already appended (a redelivery raced the first)
    STALE = "stale"  # the game moved on, ended, or it is not this AI seat's move
    MISSING = "missing"


@dataclass
class TurnResult:
    outcome: Outcome
    actions: int = 0  # actions this task appended
    version: int = 0  # the version the task started from (later than asked when it resumed a turn)
    level: str | None = None
    decision_seconds: float = 0.0


@dataclass
class LevelBots:
    """One bot per level for a process; planning bots share the plan memory given."""

    settings: Settings
    memory: PlanMemory | None = None
    sleep: Callable[[float], None] = field(default=time.sleep, repr=False)

    def __post_init__(self) -> None:
        self._bots: dict[str, Bot] = {}
        self._lock = threading.Lock()

    def bot(self, level: str | None) -> Bot:
        kind = self.settings.level(level).bot
        with self._lock:
            if kind not in self._bots:
                self._bots[kind] = make_bot(kind, self.memory)
            return self._bots[kind]

    def decide(self, level: str | None, view: dict, rng: random.Random) -> Action:
        return self.bot(level).decide(view, rng, self.settings.level(level).budget)


def play_due_turn(service: GameService, game_id: str, seat: int, version: int, bots: LevelBots) -> TurnResult:
    """Play the AI seat's turn from ``version`` (or from where it stands, if it is under way), or settle the row."""
    from torres_game.access import IN_PROCESS_AI
    from torres_game.ai import ai_command_id
    from torres_game.errors import CommandIdReused, GameOver, NotYourTurn, VersionConflict
    from torres_game.service import Credentials

    record = service.store.get_game(game_id)
    if record is None:
        return TurnResult(Outcome.MISSING, version=version)
    # An AI seat, or a human seat the AI took over after a timeout (issue 15): the service says which, and at
    # what level.
    level = service.ai_seat_level(game_id, seat)
    if level is None:
        service.store.complete_ai_turn(game_id, version)
        return TurnResult(Outcome.STALE, version=version)
    current, state = service.state_at(game_id)
    result = TurnResult(Outcome.STALE, version=current, level=level)
    if current < version or record.status == "over" or tr.is_over(state) or state.to_move != seat:
        service.store.complete_ai_turn(game_id, version)
        return result
    if current != version:  # a redelivered or swept task of a turn under way: resume it where it stands
        service.store.complete_ai_turn(game_id, version)
    # The worker's own principal, not a key: it holds the database itself (docs/security.md, internal services).
    credentials = Credentials(principal=IN_PROCESS_AI)
    for _ in range(MAX_TURN_ACTIONS):
        if bots.settings.delay:
            bots.sleep(bots.settings.delay)
        started = time.perf_counter()
        action = decide_with_retries(bots, level, state, seat, game_id, current)
        result.decision_seconds += time.perf_counter() - started
        try:
            submitted = service.submit_action(game_id, credentials, seat=seat, action=action,
                                              expected_version=current, command_id=ai_command_id(game_id, current))
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
        metrics.DECISIONS.labels(level or "easy").inc()
        current, state = service.state_at(game_id)
        if tr.is_over(state) or state.to_move != seat:
            break  # the last append closed our row and wrote the next seat's (its task is queued)
    return result


def decide_with_retries(
    bots: LevelBots, level: str | None, state: tr.State, seat: int, game_id: str, version: int
) -> Action:
    """The bot's decision from the seat's view; an infrastructure error recomputes it after a backoff (the
    same seed ``<game>:<version>``: a deterministic bot makes the same choice), and after ``infra_attempts``
    tries it propagates (the task retries later, the outbox row stays due)."""
    attempts = max(1, bots.settings.infra_attempts)
    for attempt in range(attempts):
        try:
            return decide_safely(bots, level, state, seat, random.Random(f"{game_id}:{version}"))
        except INFRASTRUCTURE_ERRORS as exc:
            metrics.RETRIES.labels("decision").inc()
            if attempt + 1 == attempts:
                raise
            pause = min(5.0, 0.2 * 2**attempt)
            log.warning("AI decision hit an infrastructure error; retrying", extra={
                "game_id": game_id, "seat": seat, "version": version, "ai_level": level, "attempt": attempt + 1,
                "retry_in_s": pause, "error": repr(exc)})
            bots.sleep(pause)
    raise AssertionError("unreachable")


def decide_safely(bots: LevelBots, level: str | None, state: tr.State, seat: int, rng: random.Random) -> Action:
    """The bot sees only the seat's view. A bot bug (an exception that is not an infrastructure error, or an
    illegal choice) is replaced by a random legal action so the game goes on, and counted."""
    legal = tr.legal_actions(state)
    started = time.perf_counter()
    try:
        action = bots.decide(level, tr.view(state, seat), rng)
    except INFRASTRUCTURE_ERRORS:
        raise
    except Exception as exc:
        return _fallback("exception", level, legal, rng, error=repr(exc))
    metrics.DECISION_SECONDS.labels(level or "easy").observe(time.perf_counter() - started)
    if action not in legal:
        return _fallback("illegal", level, legal, rng, error=f"illegal action {action!r}")
    return action


def _fallback(cause: str, level: str | None, legal: list[Action], rng: random.Random, *, error: str) -> Action:
    metrics.FALLBACKS.labels(cause).inc()
    log.error("bot failed; playing a random legal action", extra={"ai_level": level, "cause": cause, "error": error},
              exc_info=cause == "exception")
    return rng.choice(legal)
