"""Settings from environment variables, read only when an entry point asks (never at import time).

Levels map to a bot kind and a budget, so operators can retune strength without a deploy:
``TORRES_AI_HARD=mcts``, ``TORRES_AI_HARD_SECONDS=0.5``, ``TORRES_AI_HARD_ITERATIONS=200``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field

from .bots import BOT_KINDS, Budget

LEVELS = ("easy", "medium", "hard")
_DEFAULT_LEVELS = {
    "easy": ("random", Budget(iterations=1, seconds=0.1)),
    "medium": ("greedy", Budget(iterations=1, seconds=0.5)),
    "hard": ("mcts", Budget(iterations=200, seconds=0.5)),
}


@dataclass(frozen=True)
class Level:
    bot: str
    budget: Budget


@dataclass(frozen=True)
class Settings:
    """Everything the AI worker reads from its environment."""

    levels: dict[str, Level] = field(
        default_factory=lambda: {name: Level(bot, budget) for name, (bot, budget) in _DEFAULT_LEVELS.items()}
    )
    broker_url: str = ""
    queue: str = "torres-ai"  # high priority: AI turns of games with a human seat (someone is waiting)
    bulk_queue: str = "torres-ai-bulk"  # bot-only games (tournaments, simulations): served when `queue` is empty
    key_prefix: str = "torres_ai"
    soft_time_limit: float = 20.0  # a decision is budgeted well below 1 s; this only catches a hang
    time_limit: float = 30.0
    max_retries: int = 10
    sweep_interval: float = 15.0  # how often the sweeper looks at the outbox
    sweep_after: float = 30.0  # an outbox row this old with its turn still due is enqueued again
    broker_check: float = 1.0  # how often the sweeper loop checks whether the broker lost its queues
    visibility_timeout: float = 300.0  # Redis redelivers an unacknowledged task after this long
    plan_ttl: int = 3600  # seconds a planned turn waits in Redis for its next decision
    metrics_port: int = 9400  # each worker serves /metrics here; 0 = off
    delay: float = 0.0  # demo pacing: seconds to wait before each AI action (TORRES_AI_DELAY)
    infra_attempts: int = 8  # in-task tries of a decision whose Redis/database step failed, before a Celery retry

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if env is None else env
        levels: dict[str, Level] = {}
        for name, (bot, budget) in _DEFAULT_LEVELS.items():
            upper = name.upper()
            kind = env.get(f"TORRES_AI_{upper}", bot)
            if kind not in BOT_KINDS:
                raise ValueError(f"TORRES_AI_{upper}={kind!r}: expected one of {', '.join(BOT_KINDS)}")
            levels[name] = Level(kind, Budget(
                iterations=int(env.get(f"TORRES_AI_{upper}_ITERATIONS", budget.iterations)),
                seconds=float(env.get(f"TORRES_AI_{upper}_SECONDS", budget.seconds)),
            ))
        broker = env.get("CELERY_BROKER_URL") or env.get("REDIS_URL") or ""
        return cls(
            levels=levels,
            broker_url=broker,
            queue=env.get("TORRES_AI_QUEUE", "torres-ai"),
            bulk_queue=env.get("TORRES_AI_BULK_QUEUE", "torres-ai-bulk"),
            key_prefix=env.get("TORRES_AI_KEY_PREFIX", "torres_ai"),
            soft_time_limit=float(env.get("TORRES_AI_SOFT_TIME_LIMIT", "20")),
            time_limit=float(env.get("TORRES_AI_TIME_LIMIT", "30")),
            max_retries=int(env.get("TORRES_AI_MAX_RETRIES", "10")),
            sweep_interval=float(env.get("TORRES_AI_SWEEP_INTERVAL", "15")),
            sweep_after=float(env.get("TORRES_AI_SWEEP_AFTER", "30")),
            broker_check=float(env.get("TORRES_AI_BROKER_CHECK", "1")),
            visibility_timeout=float(env.get("TORRES_AI_VISIBILITY_TIMEOUT", "300")),
            plan_ttl=int(env.get("TORRES_AI_PLAN_TTL", "3600")),
            metrics_port=int(env.get("TORRES_AI_METRICS_PORT", "9400")),
            delay=float(env.get("TORRES_AI_DELAY", "0")),
            infra_attempts=int(env.get("TORRES_AI_INFRA_ATTEMPTS", "8")),
        )

    def queue_for(self, seats: list[dict]) -> str:
        """Humans first: a game with a human seat goes to the high-priority queue, a bot-only game to bulk."""
        return self.queue if any(seat.get("kind") == "human" for seat in seats) else self.bulk_queue

    def level(self, name: str | None) -> Level:
        """The level of a seat; an unknown or missing level plays as ``easy`` rather than stalling."""
        return self.levels.get(name or "easy", self.levels["easy"])
