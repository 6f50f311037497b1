"""The play use cases: an action, resigning, abandoning, undoing. Each checks who acts and whether it is their
turn, then writes through :class:`~.writes.GameWriter`; a retried command id answers its original result."""

from __future__ import annotations

import hashlib
import logging
import math
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import torres_rules as tr
from torres_audit.chain import canonical_json
from torres_online.events import GAME_ENDED
from torres_online.lifecycle import format_time

from . import events as ev
from . import metrics
from .access import Access, Caller, Credentials, GameInfo, SeatCredential
from .clock import Clock
from .deadlines import DeadlineEnforcer
from .errors import (
    CommandIdReused,
    Forbidden,
    GameOver,
    IllegalActionError,
    NotYourTurn,
    SeatForfeited,
    SeatPlayedByAi,
    ServiceError,
    TimeUp,
    Unauthenticated,
    UndoDisabled,
    UndoUnavailable,
    VersionConflict,
)
from .folding import Folded, GameStates
from .redaction import Reader, redact_events
from .store.base import AppendResult, EventStore, NewEvent
from .writes import GameWriter, Submitted

log = logging.getLogger("torres_game.service")  # the service's one logger name, which log pipelines select on


@dataclass(eq=False)
class PlayCommands:
    """The commands of a game in play. Every one goes through the same turn check and the same append."""

    store: EventStore
    access: Access
    games: GameStates
    writer: GameWriter
    deadlines: DeadlineEnforcer
    clock: Clock

    def submit_action(
        self, game_id: str, creds: Credentials, *, seat: int, action: dict[str, Any],
        expected_version: int, command_id: str,
    ) -> Submitted:
        caller = self.access.caller(creds)
        info = self.games.info(game_id)
        presented = self._actor(info, caller, seat)
        try:
            return self._submit(info, seat, action, expected_version, command_id, by_ai=creds.token is None,
                                seat_token=presented)
        except ServiceError as exc:
            # The token was judged on the rows this process read last: before any other refusal reaches the
            # client, judge it on fresh ones, so that a token error comes first, as it would have.
            if presented is not None and not isinstance(exc, Unauthenticated):
                self.access.token_credential(info, caller, max_age=0.0)
            raise

    def _actor(self, info: GameInfo, caller: Caller, seat: int) -> SeatCredential | None:
        """``Access.actor`` on the seat-token rows as last read, and a key with ``ai`` for a human seat the AI
        may take over after a timeout (whether the AI plays it *now* is the turn check's business:
        :meth:`_submit`)."""
        try:
            return self.access.actor(info, caller, seat, max_age=math.inf)
        except Forbidden:
            # Forbidden (not 404 nor insufficient_scope) with a key: the key may act for AI seats of this game,
            # and this seat is a human one.
            if caller.token is not None or caller.principal is None or info.seat_kind(seat) is None:
                raise
            if self.games.current(info.record.game_id).life.settings.timeout_policy != "ai":
                raise
            return None

    @staticmethod
    def _fingerprint(seat: int, action: dict[str, Any], expected_version: int) -> str:
        body = {"seat": seat, "action": action, "expected_version": expected_version}
        return hashlib.sha256(canonical_json(body).encode()).hexdigest()

    def _replay(self, original: AppendResult, fingerprint: str, seat: int) -> Submitted:
        if original.fingerprint != fingerprint:
            raise CommandIdReused("this command id was already used with a different request")
        then = self.games.folded_at(original.game_id, original.version)  # exactly the original body
        metrics.REPLAYS.inc()
        return Submitted(self._submitted_body(original, seat, then), replayed=True)

    def _submitted_body(self, result: AppendResult, seat: int, folded: Folded) -> dict[str, Any]:
        """The 201 body; ``legal_actions`` (the seat's, at the new version) saves a GET while its turn goes on."""
        return {
            "version": result.version,
            "events": redact_events(list(result.events), Reader(seat=seat)),
            "legal_actions": tr.legal_actions(folded.state) if folded.to_move == seat else [],
        }

    def _refuse(
        self, game_id: str, command_id: str, fingerprint: str, seat: int, error: ServiceError, *, at: int
    ) -> Submitted:
        """Before refusing, honour a retry (a known command id returns its original result), and
        prefer 409 when the game moved on: the refusal may rest on a cached, stale state."""
        original = self.store.find_command(game_id, command_id)
        if original is not None:
            return self._replay(original, fingerprint, seat)
        if not isinstance(error, (VersionConflict, TimeUp)):  # time_up: the timeout itself moved the game on
            current = self.store.current_version(game_id)
            if current is not None and current != at:
                error = VersionConflict(f"the game is at version {current}", current_version=current)
        if isinstance(error, VersionConflict):
            metrics.VERSION_CONFLICTS.inc()
        raise error

    def _submit(
        self, info: GameInfo, seat: int, action: dict[str, Any], expected_version: int, command_id: str,
        *, by_ai: bool = False, seat_token: SeatCredential | None = None,
    ) -> Submitted:
        game_id = info.record.game_id
        fingerprint = self._fingerprint(seat, action, expected_version)
        cached = self.games.cached(game_id)
        # Fast path: no read when the cache is at the client's version. If the game moved on
        # meanwhile (another process appended), the client is stale too, and the store's version
        # check answers 409 as it should.
        folded = cached if cached is not None and cached.version == expected_version else self.games.current(game_id)
        version = folded.version
        now = self.clock()
        refusal = self._turn_refusal(game_id, folded, seat, expected_version, now, by_ai=by_ai)
        if refusal is not None:
            return self._refuse(game_id, command_id, fingerprint, seat, refusal, at=version)
        try:
            plan = self.writer.settle(info, folded, [ev.action_applied(seat, action)], now)
        except tr.IllegalAction as exc:
            return self._refuse(game_id, command_id, fingerprint, seat, IllegalActionError(str(exc)), at=version)
        except (ValueError, KeyError, TypeError) as exc:  # a malformed wire form the rules did not classify
            return self._refuse(game_id, command_id, fingerprint, seat,
                                IllegalActionError(f"malformed action: {exc!r}"), at=version)
        result, after = self.writer.append(info, folded, plan, command_id, now, fingerprint=fingerprint,
                                     seat_token=seat_token)
        if after is None:
            return self._replay(result, fingerprint, seat)
        log.info("action applied", extra={"game_id": game_id, "seat": seat, "version": result.version,
                                          "action_type": action.get("type")})
        return Submitted(self._submitted_body(result, seat, after))

    def _turn_refusal(
        self, game_id: str, folded: Folded, seat: int, expected_version: int, now: datetime, *, by_ai: bool
    ) -> ServiceError | None:
        """Why ``seat`` may not act (move or undo) at ``expected_version`` now, or None. A seat whose time is
        up gets 409 ``time_up`` after the timeout was applied here and then (the enforcer may not have run yet)."""
        version = folded.version
        if expected_version != version:
            return VersionConflict(f"expected version {expected_version}, the game is at {version}",
                                   current_version=version)
        if folded.over:
            return GameOver("the game is over")
        if seat in folded.life.forfeited:
            return SeatForfeited(f"seat {seat} has left the game")
        if folded.to_move != seat:
            return NotYourTurn(f"seat {folded.to_move} is to move, not seat {seat}")
        if folded.life.ai_plays(seat) and not by_ai:
            return SeatPlayedByAi(f"the AI plays seat {seat} after its timeout")
        deadline = folded.life.deadline()
        if deadline is not None and now > deadline:
            self.deadlines.enforce_deadline(game_id, now=now)
            return TimeUp(f"seat {seat}'s time ran out at {format_time(deadline)}")
        return None

    @staticmethod
    def _result_body(result: AppendResult, reader: Reader) -> dict[str, Any]:
        """The 201 of resign/abandon, from the append alone, so a replay answers exactly the original body."""
        over = any(event.type == GAME_ENDED for event in result.events)
        return {"game_id": result.game_id, "version": result.version, "status": "over" if over else "active",
                "events": redact_events(list(result.events), reader)}

    def resign(self, game_id: str, creds: Credentials, *, seat: int) -> Submitted:
        """The seat leaves (seat token): it forfeits like a timeout does — its knights stay, it passes every
        turn, it ranks last — and with fewer than two seats left the game ends. A retry is answered from the
        log (command id ``resign:<game>:<seat>``)."""
        caller = self.access.caller(creds)
        info = self.games.info(game_id)
        self.access.actor(info, caller, seat, max_age=0.0)  # rare writes: on rows read now
        command_id = f"resign:{game_id}:{seat}"
        original = self.store.find_command(game_id, command_id)
        if original is not None:
            return Submitted(self._result_body(original, Reader(seat=seat)), replayed=True)

        def make(folded: Folded) -> list[NewEvent]:
            if folded.over:
                raise GameOver("the game is over")
            if seat in folded.life.forfeited:
                raise SeatForfeited(f"seat {seat} has already left the game")
            return [ev.resigned(seat)]

        result = self.writer.append_retrying(info, make, command_id)
        log.info("seat resigned", extra={"game_id": game_id, "seat": seat, "version": result.version})
        return Submitted(self._result_body(result, Reader(seat=seat)), replayed=result.duplicate)

    def abandon(self, game_id: str, creds: Credentials, *, reason: str) -> Submitted:
        """The portal ends the game (service key) with a recorded reason, e.g. the matcher aborting a game whose
        players never came. The result ranks seats by score and is unrated if nobody acted yet. Abandoning the
        same game again answers the original result."""
        caller = self.access.caller(creds)
        info = self.games.info(game_id)
        self.access.game_admin(info, caller)
        command_id = f"abandon:{game_id}"
        original = self.store.find_command(game_id, command_id)
        if original is not None:
            return Submitted(self._result_body(original, Reader.spectator()), replayed=True)

        def make(folded: Folded) -> list[NewEvent]:
            if folded.over:
                raise GameOver("the game is over")
            return [ev.abandoned(reason)]

        result = self.writer.append_retrying(info, make, command_id, abandoned=True)
        log.info("game abandoned", extra={"game_id": game_id, "reason": reason, "version": result.version})
        return Submitted(self._result_body(result, Reader.spectator()), replayed=result.duplicate)

    def undo(
        self, game_id: str, creds: Credentials, *, seat: int, expected_version: int, command_id: str,
    ) -> Submitted:
        """Take back the seat's last action of this turn, at the current version: the state becomes the one
        before it. Refused once something hidden was revealed since (``lifecycle.CLOSES_UNDO``)."""
        caller = self.access.caller(creds)
        info = self.games.info(game_id)
        self.access.actor(info, caller, seat, max_age=0.0)  # rare writes: on rows read now
        fingerprint = self._fingerprint(seat, {"type": "undo"}, expected_version)
        folded = self.games.current(game_id)
        now = self.clock()
        refusal = self._turn_refusal(game_id, folded, seat, expected_version, now, by_ai=creds.token is None)
        if refusal is None and not folded.life.settings.undo:
            refusal = UndoDisabled("this game was created with undo switched off")
        if refusal is None and not folded.life.undo:
            refusal = UndoUnavailable("nothing of this turn can be taken back: no action yet, or a card was "
                                      "drawn or shown since")
        if refusal is not None:
            return self._refuse(game_id, command_id, fingerprint, seat, refusal, at=folded.version)
        undone = folded.life.undo[-1][0]
        plan = self.writer.settle(info, folded, [ev.action_undone(seat, undone)], now)
        result, after = self.writer.append(info, folded, plan, command_id, now, fingerprint=fingerprint)
        if after is None:
            return self._replay(result, fingerprint, seat)
        log.info("action undone", extra={"game_id": game_id, "seat": seat, "undone_version": undone})
        return Submitted(self._submitted_body(result, seat, after))
