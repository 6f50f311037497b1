"""Settings from environment variables, read only when an entry point asks (never at import time).

Levels map to a bot kind and a budget, so operators can retune strength without a deploy:
``TORRES_AI_HARD=mcts``, ``TORRES_AI_HARD_SECONDS=0.5``, ``TORRES_AI_HARD_ITERATIONS=200``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field

from torres_service.logs import LOG_LEVEL
from torres_service.settings import Process, Setting, setting, values
from torres_service.shared_settings import AI_DELAY, BROKER_URL

from .bots import BOT_KINDS, Budget

_DEFAULT_LEVELS = {
    "easy": ("random", Budget(iterations=1, seconds=0.1)),
    "medium": ("greedy", Budget(iterations=1, seconds=0.5)),
    "hard": ("mcts", Budget(iterations=200, seconds=0.5)),
}


@dataclass(frozen=True)
class Level:
    bot: str
    budget: Budget


def _bot_kind(raw: str) -> str:
    if raw not in BOT_KINDS:
        raise ValueError(f"is not a bot kind: expected one of {', '.join(BOT_KINDS)}")
    return raw


#: Per level: its bot kind, iteration budget and wall-clock budget (``TORRES_AI_HARD=mcts``, ...), declared from
#: the defaults above so that a default is written once.
LEVEL_SETTINGS: dict[str, tuple[Setting, Setting, Setting]] = {
    name: (
        Setting(f"TORRES_AI_{name.upper()}", f"the bot kind of level `{name}` ({', '.join(BOT_KINDS)})",
                default=bot, parse=_bot_kind),
        Setting(f"TORRES_AI_{name.upper()}_ITERATIONS", f"level `{name}`: iteration budget per decision (mcts: "
                "rollouts)", default=budget.iterations),
        Setting(f"TORRES_AI_{name.upper()}_SECONDS", f"level `{name}`: wall-clock budget per decision",
                default=budget.seconds),
    )
    for name, (bot, budget) in _DEFAULT_LEVELS.items()
}


@dataclass(frozen=True)
class Settings:
    """Everything the AI worker reads from its environment; each field that is a setting declares its variable
    and meaning here, once (docs/settings.md is generated from them)."""

    levels: dict[str, Level] = field(
        default_factory=lambda: {name: Level(bot, budget) for name, (bot, budget) in _DEFAULT_LEVELS.items()}
    )
    broker_url: str = BROKER_URL.field()
    queue: str = field(default="torres-ai", metadata=setting(
        "TORRES_AI_QUEUE", "high-priority queue: AI turns of games with a human seat (someone is waiting)"))
    bulk_queue: str = field(default="torres-ai-bulk", metadata=setting(
        "TORRES_AI_BULK_QUEUE", "bulk queue: AI turns of bot-only games (tournaments, simulations), served when "
        "the other is empty"))
    key_prefix: str = field(default="torres_ai", metadata=setting(
        "TORRES_AI_KEY_PREFIX", "Redis key prefix (plan memory, sweeper markers)"))
    soft_time_limit: float = field(default=20.0, metadata=setting(
        "TORRES_AI_SOFT_TIME_LIMIT", "seconds a task may run before its soft limit (a decision is budgeted well "
        "below 1 s: this only catches a hang)"))
    time_limit: float = field(default=30.0, metadata=setting("TORRES_AI_TIME_LIMIT", "a task's hard limit"))
    max_retries: int = field(default=10, metadata=setting(
        "TORRES_AI_MAX_RETRIES", "task retries after the in-task ones (exponential back-off with jitter, 1 s … "
        "60 s)"))
    sweep_interval: float = field(default=15.0, metadata=setting(
        "TORRES_AI_SWEEP_INTERVAL", "seconds between the sweeper's looks at the outbox"))
    sweep_after: float = field(default=30.0, metadata=setting(
        "TORRES_AI_SWEEP_AFTER", "an outbox row this many seconds old with its turn still due is enqueued again"))
    broker_check: float = field(default=1.0, metadata=setting(
        "TORRES_AI_BROKER_CHECK", "how often the sweeper checks whether the broker lost its queues (then every "
        "due turn is re-sent at once)"))
    visibility_timeout: float = field(default=300.0, metadata=setting(
        "TORRES_AI_VISIBILITY_TIMEOUT", "seconds after which Redis redelivers an unacknowledged task"))
    plan_ttl: int = field(default=3600, metadata=setting(
        "TORRES_AI_PLAN_TTL", "seconds a planned turn waits in Redis for its next decision"))
    metrics_port: int = field(default=9400, metadata=setting(
        "TORRES_AI_METRICS_PORT", "each worker serves Prometheus `/metrics` here; `0`: off"))
    delay: float = AI_DELAY.field()
    analysis_slice: float = field(default=0.2, metadata=setting(
        "TORRES_AI_ANALYSIS_SLICE", "CPU seconds of one slice of a post-game analysis (one bulk-queue task): what a "
        "human's AI turn may wait for in a busy worker process"))
    infra_attempts: int = field(default=8, metadata=setting(
        "TORRES_AI_INFRA_ATTEMPTS", "in-task tries of a decision whose Redis or database step failed (back-off "
        "0.2 s … 5 s), before a Celery retry"))

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        """Read the settings (docs/settings.md), the levels' included."""
        env = os.environ if env is None else env
        levels = {name: Level(kind.read(env), Budget(iterations=iterations.read(env), seconds=seconds.read(env)))
                  for name, (kind, iterations, seconds) in LEVEL_SETTINGS.items()}
        return cls(levels=levels, **values(cls, env))

    def queue_for(self, seats: list[dict]) -> str:
        """Humans first: a game with a human seat goes to the high-priority queue, a bot-only game to bulk."""
        return self.queue if any(seat.get("kind") == "human" for seat in seats) else self.bulk_queue

    def level(self, name: str | None) -> Level:
        """The level of a seat; an unknown or missing level plays as ``easy`` rather than stalling."""
        return self.levels.get(name or "easy", self.levels["easy"])

#: What the AI workers and the sweeper read of their environment, declared to the settings table (docs/settings.md)
#: by this package's entry point in the ``torres_service.settings`` group.
PROCESS = Process("the Celery workers and the sweeper; the game service too when it runs the AI drivers in-process",
                  (Settings, LEVEL_SETTINGS, LOG_LEVEL))
