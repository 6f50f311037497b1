"""The bots' side of an AI turn: ``decide`` for :func:`torres_game.ai_turns.play_turn`, the one path that plays
AI turns (whole turns, idempotent and resumable: see that module) in every driver, thread or Celery.

**Infrastructure errors are retried, never played around.** A Redis or database error while the bot
decides (the plan memory is in Redis) is retried here with backoff, then by Celery; the decision is recomputed
with the same seed, so the move played is the bot's own. Only a genuine bot bug (an exception of another kind, or
an illegal action) falls back to a random legal action, and that is logged as an error and counted in
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

import psycopg
import redis
from celery.exceptions import SoftTimeLimitExceeded, TimeLimitExceeded

import torres_rules as tr
from torres_game.ai_turns import Decide, Decision

from . import metrics
from .bots import Action, Bot, PlanMemory, make_bot
from .config import Settings

log = logging.getLogger(__name__)

# Trouble outside the bot: a decision that met one of these is retried, never replaced by a random move.
INFRASTRUCTURE_ERRORS: tuple[type[BaseException], ...] = (
    redis.RedisError, OSError, psycopg.Error, sqlite3.Error, SoftTimeLimitExceeded, TimeLimitExceeded,
)


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

    def deciding(self) -> Decide:
        """These bots as ``play_turn``'s ``decide``: each decision seeded by ``<game>:<version>``, retried on
        infrastructure errors, a bot bug replaced by a random legal action."""

        def decide(d: Decision) -> Action:
            return decide_with_retries(self, d.level, d.state, d.seat, d.game_id, d.version)

        return decide


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
