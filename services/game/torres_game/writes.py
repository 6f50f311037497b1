"""The write path every command goes through: settle the events (the rules and what follows from them), then
one atomic append at the version they were settled on, then the cache, snapshots, waiters, the AI driver and
webhooks. One path, so the in-process bot, an external AI worker and human players are held to exactly the
same rules."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

import torres_rules as tr
from torres_online import lifecycle as lc
from torres_online.lifecycle import format_time

from . import events as ev
from . import metrics
from .access import GameInfo, SeatCredential
from .clock import Clock
from .config import Config
from .credentials import SeatTokenBooks
from .errors import VersionConflict
from .folding import Folded, GameStates
from .store.base import (
    AiTurn,
    AppendOptions,
    AppendResult,
    EventStore,
    GameRecord,
    GameSecret,
    NewEvent,
    Snapshot,
    WebhookRow,
)
from .waiting import Notice, WakeHub
from .webhooks import WRITTEN, WebhookWorker, webhooks_for


@dataclass(frozen=True)
class Submitted:
    """The answer to an action: the body, and whether it replays an earlier identical command."""

    body: dict[str, Any]
    replayed: bool = False


class TurnDue(Protocol):
    """What the write path tells the AI driver (``service.AiDriver``) after an append made an AI seat's turn."""

    def turn_due(self, game_id: str, seat: int, version: int) -> None: ...


@dataclass(eq=False)
class GameWriter:
    """The unit of work around the store: every append of every command, and what follows it in this process."""

    store: EventStore
    config: Config
    games: GameStates
    books: SeatTokenBooks
    hub: WakeHub
    driver: TurnDue
    clock: Clock
    #: The webhook delivery worker of this process (``webhook_interval`` > 0), woken by its appends.
    webhook_worker: WebhookWorker | None = None

    def settle(
        self, info: GameInfo, folded: Folded, events: Sequence[NewEvent], now: datetime, *, abandoned: bool = False,
    ) -> tuple[list[NewEvent], Folded]:
        """Fold ``events`` (raising the rules' errors) and add what follows from them in the same append: a
        forfeited seat to move passes (:func:`lifecycle.pass_action`), and the game ends, with its result,
        after the third scoring, when fewer than two seats are left, or when the portal abandoned it: what
        :func:`torres_online.lifecycle.follow_up` says, the rule the offline verifier holds every log to."""
        at = format_time(now)
        state, life, version = folded.state, folded.life, folded.version
        new = list(events)

        def initial(_: dict[str, Any]) -> tr.State:
            raise ValueError("game_created cannot be appended")

        for event in new:
            version += 1
            state, life = lc.step(state, life, event.type, event.payload, version, at, initial)
        while (due := lc.follow_up(state, life, abandoned=abandoned)) is not None:
            if due == lc.END:
                event = ev.game_ended(state, info.secret.seed, life, abandoned=abandoned)
            else:
                event = ev.action_applied(state.to_move, lc.pass_action(state), auto="forfeit")
            new.append(event)
            version += 1
            state, life = lc.step(state, life, event.type, event.payload, version, at, initial)
        return new, Folded.of(version, state, life)

    def append(
        self, info: GameInfo, folded: Folded, plan: tuple[list[NewEvent], Folded], command_id: str, now: datetime,
        *, fingerprint: str | None = None, seat_token: SeatCredential | None = None,
    ) -> tuple[AppendResult, Folded | None]:
        """One atomic append of a settled plan at ``folded.version``, stamped ``now``; then the cache, a
        snapshot when due, waiters and the AI driver. ``(original, None)`` for a command id seen before.
        ``seat_token``: the token the actor presented, refused by the append if a later one was recorded."""
        game_id = info.record.game_id
        new_events, after = plan
        ai_turn = self.ai_turn_due(game_id, after)
        hooks = self._webhooks(info.record, new_events, folded.version + 1, now, folded, after)
        try:
            result = self.store.append(game_id, folded.version, new_events, command_id, AppendOptions(
                fingerprint=fingerprint, status="over" if after.over else None, summary=after.summary,
                ai_turn=ai_turn, close_ai_turns="ai" in after.life.kinds or after.life.settings.timeout_policy == "ai",
                now=now, seat_token=None if seat_token is None else (seat_token.seat, seat_token.generation),
                webhooks=hooks,
            ))
        except VersionConflict:
            metrics.VERSION_CONFLICTS.inc()
            raise
        if result.duplicate:
            return result, None
        metrics.APPENDS.labels("ai" if command_id.startswith("ai:") else "human").inc()  # ai_turns.ai_command_id
        metrics.EVENTS.inc(len(result.events))
        self.games.put(game_id, after)
        if after.over:
            self.books.ended(game_id)
        every = self.config.snapshot_every
        if every > 0 and result.version // every > folded.version // every:
            self.store.save_snapshot(Snapshot(game_id, result.version, after.state.to_position(),
                                              lifecycle=after.life.to_json()))
        self._after_append(game_id, after, ai_turn, hooks)
        return result, after

    def append_retrying(
        self, info: GameInfo, make: Callable[[Folded], list[NewEvent]], command_id: str, *, abandoned: bool = False,
    ) -> AppendResult:
        """Append ``make(current)`` at whatever version the game is at: a resignation or an abandonment is
        valid at any moment, so losing a race to a move just means trying again on the new version."""
        for _ in range(20):
            folded = self.games.current(info.record.game_id)
            now = self.clock()
            try:
                result, _after = self.append(info, folded, self.settle(info, folded, make(folded), now,
                                                                         abandoned=abandoned), command_id, now)
                return result
            except VersionConflict:
                continue
        raise VersionConflict("the game kept moving; try again", current_version=self.games.current(
            info.record.game_id).version)

    def create(self, record: GameRecord, secret: GameSecret, created: NewEvent, folded: Folded,
               now: datetime) -> AppendResult:
        """The creation's append: the games row, its secret and its first event, in one transaction."""
        game_id = record.game_id
        ai_turn = self.ai_turn_due(game_id, folded)
        hooks = self._webhooks(record, [created], 1, now, None, folded)
        result = self.store.create_game(record, secret, [created], f"create:{game_id}", ai_turn=ai_turn, now=now,
                                        webhooks=hooks)
        self.games.put(game_id, folded)
        self._after_append(game_id, folded, ai_turn, hooks)
        return result

    @staticmethod
    def ai_turn_due(game_id: str, folded: Folded) -> AiTurn | None:
        to_move = folded.to_move
        if to_move is not None and folded.life.ai_plays(to_move):
            return AiTurn(game_id, to_move, folded.version)
        return None

    def _webhooks(self, record: GameRecord, events: Sequence[NewEvent], first_version: int, now: datetime,
                  before: Folded | None, after: Folded) -> list[WebhookRow]:
        """The outbox rows these events cause (:func:`webhooks.webhooks_for`), for a game whose tenant had an
        endpoint when it was created (the games row says so, whichever process appends; otherwise nothing is
        written, so webhooks cost nothing to a tenant that does not use them)."""
        if not record.webhooks:
            return []
        return webhooks_for(record, events, first_version, format_time(now), None if before is None else before.life,
                            after.life, after.summary)

    def _after_append(self, game_id: str, folded: Folded, ai_turn: AiTurn | None,
                      hooks: Sequence[WebhookRow] = ()) -> None:
        if self.hub.listener is None:  # SQLite: in-process wake-ups; PostgreSQL's come from the database
            notice = Notice(game_id, folded.version, "over" if folded.over else "active", folded.to_move)
            self.hub.publish(game_id, notice)
        if ai_turn is not None:
            self.driver.turn_due(ai_turn.game_id, ai_turn.seat, ai_turn.version)
        if hooks:
            for hook in hooks:
                WRITTEN.labels(hook.type).inc()
            if self.webhook_worker is not None:
                self.webhook_worker.wake()
