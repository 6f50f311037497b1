"""The deadline enforcer: appends the timeout of a seat whose clock ran out, exactly once however many
processes sweep."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from datetime import datetime

from torres_online.lifecycle import format_time

from . import events as ev
from .clock import Clock
from .config import Config
from .errors import VersionConflict
from .folding import GameStates
from .store.base import EventStore
from .writes import GameWriter

log = logging.getLogger("torres_game.service")  # the service's one logger name, which log pipelines select on


@dataclass(eq=False)
class DeadlineEnforcer:
    """Timeouts as commands of their own: the same settle and append as a move, keyed by the version whose
    deadline passed."""

    store: EventStore
    config: Config
    games: GameStates
    writer: GameWriter
    clock: Clock

    def enforce_deadline(self, game_id: str, *, now: datetime | None = None) -> bool:
        """Append the timeout of the seat to move if its deadline has passed; True if this call appended it.

        Idempotent and race-free by the usual rule: the append is at the version whose deadline passed, with
        the command id ``timeout:<game>:<version>``, so a move committed first makes it a version conflict,
        and a second enforcer gets the first one's append back as a duplicate."""
        folded = self.games.current(game_id)
        deadline = folded.life.deadline()
        now = now or self.clock()
        if deadline is None or now < deadline:
            return False
        info = self.games.info(game_id)
        seat = folded.life.mover
        assert seat is not None
        plan = self.writer.settle(info, folded, [ev.timed_out(seat, folded.life, format_time(deadline))], now)
        try:
            result, after = self.writer.append(info, folded, plan, f"timeout:{game_id}:{folded.version}", now)
        except VersionConflict:
            return False
        if after is not None:
            log.info("seat timed out", extra={"game_id": game_id, "seat": seat, "version": result.version,
                                              "policy": folded.life.settings.timeout_policy})
        return after is not None

    def enforce_due(self, *, limit: int = 100) -> int:
        """One sweep: apply every passed deadline the store knows of; returns the timeouts appended."""
        appended = 0
        for game_id in self.store.due_games(format_time(self.clock()), limit=limit):
            try:
                appended += self.enforce_deadline(game_id)
            except Exception:  # one broken game must not stop the sweep; it stays due
                log.exception("deadline enforcement failed", extra={"game_id": game_id})
        return appended

    def run(self, stop: threading.Event, interval: float | None = None) -> None:
        """The enforcer loop (a daemon thread of every service process, or ``python -m torres_game enforce``):
        as many may run as there are processes, the appends keep timeouts exactly-once."""
        interval = self.config.enforcer_interval if interval is None else interval
        failing = False
        while not stop.is_set() and not self.store.closed:  # a store closed under it ends the loop quietly
            try:
                self.enforce_due()
                failing = False
            except Exception:  # the database away: say so once per outage, keep sweeping
                if not failing:
                    log.exception(f"deadline sweep failed; retrying every {interval} s")
                failing = True
            stop.wait(interval)
