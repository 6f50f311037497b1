"""Play one due AI turn through the game service: the one code path of every driver (thread or Celery).

Exactly-once comes from the game service, not from us: we submit with ``expected_version=version`` and
the deterministic command id ``ai:<game>:<version>``. A duplicate delivery finds the version moved on
(stale) or, if it raced the first, the store returns the first append for that command id; a stale
task finds the game elsewhere and does nothing. The outbox row is closed only once the turn is settled
(played, stale or impossible), so a crash anywhere before that leaves it for the sweeper.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

import torres_rules as tr

from .bots import Action, Bot, PlanMemory, make_bot
from .config import Settings

if TYPE_CHECKING:
    from torres_game.service import GameService

log = logging.getLogger(__name__)


class Outcome(StrEnum):
    PLAYED = "played"
    DUPLICATE = "duplicate"  # this command id was already appended (a redelivery raced the first)
    STALE = "stale"  # the game moved on, ended, or it is not this AI seat's move
    MISSING = "missing"


@dataclass
class LevelBots:
    """One bot per level for a process; planning bots share the plan memory given."""

    settings: Settings
    memory: PlanMemory | None = None

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


def play_due_turn(service: GameService, game_id: str, seat: int, version: int, bots: LevelBots) -> Outcome:
    """Decide and submit the AI seat's action at ``version``, or settle the outbox row if it is stale."""
    from torres_game.ai import ai_command_id
    from torres_game.errors import CommandIdReused, GameOver, NotYourTurn, VersionConflict
    from torres_game.service import Credentials

    record = service.store.get_game(game_id)
    if record is None:
        return Outcome.MISSING
    # An AI seat, or a human seat the AI took over after a timeout (issue 15): the service says which, and at
    # what level.
    level = service.ai_seat_level(game_id, seat)
    if level is None:
        service.store.complete_ai_turn(game_id, version)
        return Outcome.STALE
    current, state = service.state_at(game_id)
    if current != version or record.status == "over" or tr.is_over(state) or state.to_move != seat:
        service.store.complete_ai_turn(game_id, version)
        return Outcome.STALE
    started = time.perf_counter()
    action = _decide_safely(bots, level, state, seat, random.Random(f"{game_id}:{version}"))
    try:
        submitted = service.submit_action(
            game_id, Credentials(api_key=service.config.api_key), seat=seat, action=action,
            expected_version=version, command_id=ai_command_id(game_id, version),
        )
        outcome = Outcome.DUPLICATE if submitted.replayed else Outcome.PLAYED
    except CommandIdReused:  # a racing twin appended a (differently timed) decision for this version
        outcome = Outcome.DUPLICATE
    except (VersionConflict, NotYourTurn, GameOver):
        outcome = Outcome.STALE
    service.store.complete_ai_turn(game_id, version)
    log.info("ai turn", extra={"game_id": game_id, "seat": seat, "version": version, "outcome": str(outcome),
                               "ms": round((time.perf_counter() - started) * 1000, 1)})
    return outcome


def _decide_safely(bots: LevelBots, level: str | None, state: tr.State, seat: int, rng: random.Random) -> Action:
    """The bot sees only the seat's view; should it ever fail, a random legal action keeps the game going."""
    try:
        action = bots.decide(level, tr.view(state, seat), rng)
        if action in tr.legal_actions(state):
            return action
        log.error("bot chose an illegal action", extra={"action": action, "level": level})
    except Exception:
        log.exception("bot failed", extra={"level": level})
    return rng.choice(tr.legal_actions(state))
