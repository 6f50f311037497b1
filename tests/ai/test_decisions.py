"""Which failures may make a bot's move random (a bot bug, counted) and which may not (anything
outside the bot: it is retried and the bot's own move is played). Function level, no services; the real
Redis outage is in ``test_at_scale.py``."""

from __future__ import annotations

import random
from typing import Any

import psycopg
import pytest
import redis

import torres_rules as tr
from torres_ai import metrics
from torres_ai.bots import Budget, LocalPlanMemory, make_bot
from torres_ai.config import Settings
from torres_ai.turns import LevelBots, decide_with_retries


def _turn_state() -> tr.State:
    """A position in the ``turn`` stage (set-up played by first legal actions)."""
    state = tr.new_game(2, seed=7)
    while state.stage != "turn":
        state = tr.apply(state, tr.legal_actions(state)[0])
    return state


class FlakyMemory(LocalPlanMemory):
    """A plan memory whose first ``failures`` writes fail as Redis does when it is down."""

    def __init__(self, failures: int, error: Exception) -> None:
        super().__init__()
        self.failures, self.error = failures, error

    def put_many(self, items: dict[str, Any]) -> None:
        if self.failures:
            self.failures -= 1
            raise self.error
        super().put_many(items)


class BuggyBot:
    name = "buggy"

    def decide(self, view: dict, rng: random.Random, budget: Budget) -> dict:
        raise KeyError("a bug")


def _bots(memory: LocalPlanMemory, attempts: int = 4) -> LevelBots:
    settings = Settings.from_env({"TORRES_AI_INFRA_ATTEMPTS": str(attempts), "TORRES_AI_MEDIUM_SECONDS": "30"})
    return LevelBots(settings, memory, sleep=lambda _: None)


def _count(counter: Any, label: str) -> float:
    return counter.labels(label)._value.get()


@pytest.mark.parametrize("error", [redis.ConnectionError("Error 111 connecting"), psycopg.OperationalError("gone"),
                                   TimeoutError("timed out")])
def test_an_infrastructure_error_is_retried_and_the_bot_plays_its_own_move(error: Exception) -> None:
    state = _turn_state()
    seat = state.to_move
    assert seat is not None
    own = make_bot("greedy").decide(tr.view(state, seat), random.Random("g:5"), Budget(1, 30))
    fallbacks = _count(metrics.FALLBACKS, "exception")
    retries = _count(metrics.RETRIES, "decision")
    chosen = decide_with_retries(_bots(FlakyMemory(2, error)), "medium", state, seat, "g", 5)
    assert chosen == own
    assert _count(metrics.FALLBACKS, "exception") == fallbacks  # never a random move
    assert _count(metrics.RETRIES, "decision") == retries + 2


def test_an_outage_that_outlasts_the_retries_propagates_instead_of_playing() -> None:
    state = _turn_state()
    with pytest.raises(redis.ConnectionError):
        decide_with_retries(_bots(FlakyMemory(99, redis.ConnectionError("down")), attempts=3), "medium", state,
                            state.to_move or 0, "g", 5)


def test_a_bot_bug_falls_back_to_a_legal_move_and_is_counted() -> None:
    state = _turn_state()
    bots = _bots(LocalPlanMemory())
    bots._bots["greedy"] = BuggyBot()  # the level's bot, replaced by one with a bug
    before = _count(metrics.FALLBACKS, "exception")
    action = decide_with_retries(bots, "medium", state, state.to_move or 0, "g", 5)
    assert action in tr.legal_actions(state)
    assert _count(metrics.FALLBACKS, "exception") == before + 1


def test_humans_first_queue_choice() -> None:
    settings = Settings.from_env({"TORRES_AI_QUEUE": "hi", "TORRES_AI_BULK_QUEUE": "bulk"})
    assert settings.queue_for([{"kind": "ai"}, {"kind": "human", "player_id": "p"}]) == "hi"
    assert settings.queue_for([{"kind": "ai"}, {"kind": "ai"}]) == "bulk"
    assert Settings.from_env({}).bulk_queue == "torres-ai-bulk" and Settings.from_env({}).metrics_port == 9400
