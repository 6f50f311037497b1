"""The read use cases: one method per query, each behind the read gate of :mod:`.access`, none writing."""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import torres_rules as tr
from torres_audit.chain import canonical_json
from torres_audit.note import Signer
from torres_service.principals import MissingScope

from .access import Access, Credentials
from .clock import Clock
from .errors import Unauthenticated, ValidationFailed
from .folding import GameStates
from .records import build_record
from .redaction import FULL, Reader, redact_events
from .store.base import EventStore, GameFilter, GameRecord
from .translog import TransparencyLog
from .verification import verify_log
from .waiting import WakeHub, wait_for_version

#: No credentials: what in-process callers of the read methods are by default (a private game is then 404, as it
#: is to an anonymous HTTP client), so that leaving ``creds`` out never grants more than asking anonymously.
ANONYMOUS = Credentials()


def summary_of(record: GameRecord) -> dict[str, Any]:
    """A game's summary as every endpoint and stream shows it, from its games row alone."""
    return {
        "game_id": record.game_id,
        "status": record.status,
        "version": record.version,
        "visibility": record.visibility,
        "edition": record.edition,
        "master": record.master,
        "options": record.options,
        "seats": record.seats,
        **{k: record.summary.get(k) for k in ("stage", "phase", "round", "to_move", "scores", "winner",
                                               "deadline")},
        "winners": record.summary.get("winners", [] if record.summary.get("winner") is None
                                      else [record.summary["winner"]]),
        "created_at": record.created_at,
        "external_id": record.external_id,
        "labels": record.labels,
    }


def _write_cursor(created_at: str, game_id: str) -> str:
    """An opaque list cursor: the last listed game's keyset, base64url (what it holds is no promise)."""
    return base64.urlsafe_b64encode(canonical_json([created_at, game_id]).encode()).decode().rstrip("=")


def _read_cursor(cursor: str | None) -> tuple[str, str] | None:
    if cursor is None:
        return None
    try:
        created_at, game_id = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
        datetime.fromisoformat(created_at)
        if not isinstance(game_id, str):
            raise TypeError(game_id)
    except (ValueError, TypeError) as exc:
        raise ValidationFailed("not a cursor this service gave out", errors={"cursor": ["invalid cursor"]}) from exc
    return created_at, game_id


@dataclass(eq=False)
class GameQueries:
    """What a caller may read of games: lists, summaries, views, event pages, records, the long-poll."""

    store: EventStore
    access: Access
    games: GameStates
    hub: WakeHub
    clock: Clock
    signer: Signer
    translog: TransparencyLog

    def list_games(
        self, creds: Credentials, *, limit: int, cursor: str | None = None, status: str | None = None,
        player_id: str | None = None, visibility: str | None = None, created_after: datetime | None = None,
        created_before: datetime | None = None, external_id: str | None = None, label: str | None = None,
    ) -> dict[str, Any]:
        """The caller's tenant's games (the admin key: every tenant's), newest first, every visibility. The
        cursor is the last listed game's ``(created_at, game_id)``: a page never repeats or skips a game while
        new ones are created, which an offset did."""
        tenant = self.access.list_scope(self.access.caller(creds))
        where = GameFilter(tenant=tenant, status=status, player_id=player_id, visibility=visibility,
                           external_id=external_id, label=label, created_after=created_after,
                           created_before=created_before)
        records = self.store.list_games(where, before=_read_cursor(cursor), limit=limit)
        last = records[-1] if len(records) == limit else None
        return {"games": [summary_of(r) for r in records], "limit": limit,
                "next_cursor": _write_cursor(last.created_at, last.game_id) if last else None}

    def game_summary(self, game_id: str, creds: Credentials = ANONYMOUS) -> dict[str, Any]:
        """The summary, to whoever may read the game."""
        caller = self.access.caller(creds)
        self.access.check_read(self.games.info(game_id), caller)
        return summary_of(self.games.record(game_id))

    def latest_summary(self, game_id: str) -> dict[str, Any]:
        """The summary with no check: for a stream whose opening already passed :meth:`game_summary`."""
        return summary_of(self.games.record(game_id))

    def view(self, game_id: str, creds: Credentials, *, seat: int | None = None) -> dict[str, Any]:
        caller = self.access.caller(creds)
        info = self.games.info(game_id)
        reader_seat = self.access.optional_seat(info, caller, seat)
        folded = self.games.current(game_id)
        # The castles and the coming scoring read public fields only (the engine's `explain`), so every reader
        # gets the same ones; the preview is the engine's own scoring, which the web client shows without arithmetic.
        return {"version": folded.version, "seat": reader_seat, "view": tr.view(folded.state, reader_seat),
                "castles": tr.castles_of(folded.state), "preview": tr.phase_preview(folded.state),
                "lifecycle": folded.life.public(self.clock())}

    def legal_actions(self, game_id: str, creds: Credentials, *, seat: int | None = None) -> dict[str, Any]:
        caller = self.access.caller(creds)
        info = self.games.info(game_id)
        reader_seat = self.access.optional_seat(info, caller, seat)
        if reader_seat is None:
            raise Unauthenticated("send Authorization: Bearer <seat token>")
        folded = self.games.current(game_id)
        mine = folded.to_move == reader_seat and not (creds.token is not None and folded.life.ai_plays(reader_seat))
        return {"version": folded.version, "seat": reader_seat,
                "actions": tr.legal_actions(folded.state) if mine else []}

    def ai_seat_level(self, game_id: str, seat: int) -> str | None:
        """The level the AI plays ``seat`` at now: an AI seat's own, or the timeout policy's for a human seat
        taken over; None when a human plays it."""
        folded = self.games.current(game_id)
        if not 0 <= seat < len(folded.life.kinds) or not folded.life.ai_plays(seat):
            return None
        if folded.life.kinds[seat] == "ai":
            return self.games.info(game_id).record.seats[seat].get("level", "easy")
        return folded.life.settings.ai_level

    def events(self, game_id: str, creds: Credentials, *, after: int, limit: int) -> dict[str, Any]:
        caller = self.access.caller(creds)
        info = self.games.info(game_id)
        record = self.games.record(game_id)
        reader = self.access.reader(info, caller, over=record.status == "over")
        return self._event_page(record, reader, after=after, limit=limit)

    def events_for(self, game_id: str, reader: Reader, *, after: int, limit: int) -> dict[str, Any]:
        """``GET /events`` for a reader already admitted (a stream opened with headers or a stream ticket):
        the same page, redacted the same way, full once the game is over."""
        record = self.games.record(game_id)
        if record.status == "over":
            reader = Reader(full=True, seat=reader.seat)
        return self._event_page(record, reader, after=after, limit=limit)

    def _event_page(self, record: GameRecord, reader: Reader, *, after: int, limit: int) -> dict[str, Any]:
        game_id = record.game_id
        page = self.store.read(game_id, after=after, limit=limit)
        return {
            "game_id": game_id,
            "version": record.version,
            "events": redact_events(page, reader),
            "next_after": page[-1].version if page else after,
            "redacted": not reader.full,
        }

    def position_at(self, game_id: str, creds: Credentials, *, version: int | None) -> dict[str, Any]:
        caller = self.access.caller(creds)
        info = self.games.info(game_id)
        record = self.games.record(game_id)
        token_seat = self.access.check_read(info, caller)
        admin = self.access.reads_full(info, caller)
        # No credentials before the end: the spectator's view at that version (public facts only), which is
        # what a spectator watched live, so that anyone who may watch the game can replay it while it runs.
        seat = None if admin else token_seat
        at, state = self.games.state_at(game_id, version)
        # castles and the scoring are public facts (the board, the figures, the scores), so every reader gets them
        public = {"castles": tr.castles_of(state), "scoring": self._scoring_at(game_id, at, state)}
        if admin or record.status == "over":
            return {"version": at, "position": state.to_position(), **public}
        return {"version": at, "seat": seat, "view": tr.view(state, seat), **public}

    def _scoring_at(self, game_id: str, version: int, state: tr.State) -> dict[str, Any] | None:
        """The breakdown of the phase scoring event ``version`` made, or None. Only an action can score, and the
        stage after one is ``move_king`` or ``over`` (it stays ``over``, so the state before tells); only then is
        the state before folded."""
        if version < 2 or state.stage not in ("move_king", "over"):
            return None
        return tr.scored_between(self.games.state_at(game_id, version - 1)[1], state)

    def record(self, game_id: str, creds: Credentials, *, seat: int | None = None) -> dict[str, Any]:
        """The game record for the caller (docs/audit.md): complete once the game is over, else what this
        reader may see of the events (the operator or the tenant's ``admin`` key: all payloads; seat token: its
        own secrets; a spectator: what is public), behind the same read gate as every other read."""
        caller = self.access.caller(creds)
        info = self.games.info(game_id)
        reader_seat = self.access.optional_seat(info, caller, seat)
        over = self.games.record(game_id).status == "over"
        reader = Reader(full=over or self.access.reads_full(info, caller), seat=reader_seat)
        return build_record(self.store.read(game_id), info.secret, reader, self.signer,
                            inclusion=self.translog.record_inclusion(game_id) if over else None)

    def verify(self, game_id: str, creds: Credentials = ANONYMOUS) -> dict[str, Any]:
        """Re-hash the chain and re-fold the log; report the first inconsistency found."""
        caller = self.access.caller(creds)
        info = self.games.info(game_id)
        self.access.check_read(info, caller)
        record = self.games.record(game_id)
        return verify_log(
            game_id, self.store.read(game_id), seed=info.secret.seed, recorded_version=record.version,
            snapshot=self.store.latest_snapshot(game_id),
        )

    def notifications(self, creds: Credentials, *, after: int, limit: int) -> dict[str, Any]:
        """The log of the caller's games in commit order: a tenant's key with ``games`` reads its own games'
        events (full with ``admin`` too, else redacted like a spectator); an internal key with ``notifications``
        (the ratings consumer) every tenant's, redacted; the admin key every tenant's, full."""
        caller = self.access.caller(creds)
        tenant: str | None = None
        full = caller.operator
        if not caller.operator:
            principal = caller.principal
            if principal is None:
                raise Unauthenticated("send an API key in X-API-Key")
            if principal.internal:
                principal.require("notifications")
            else:
                principal.require("games")
                tenant, full = principal.name, principal.may("admin")
        page = self.store.notifications(after=after, limit=limit, tenant=tenant)
        reader = FULL if full else Reader.spectator()
        items = [
            {k: doc[k] for k in ("position", "game_id", "version", "type", "payload", "created_at", "text")}
            for doc in redact_events(page, reader)
        ]
        return {"notifications": items, "next_after": page[-1].position if page else after}

    def webhook_deliveries(self, creds: Credentials, *, after: int, limit: int) -> dict[str, Any]:
        """The outbox of the caller's tenant after the cursor ``after``: a tenant's key with ``games`` reads its
        own webhooks, the admin key every tenant's; an internal service none."""
        caller = self.access.caller(creds)
        tenant: str | None = None
        if not caller.operator:
            principal = caller.principal
            if principal is None:
                raise Unauthenticated("send an API key in X-API-Key")
            if principal.internal:
                raise MissingScope("webhooks belong to tenants: an internal service's key reads none", scope="games")
            principal.require("games")
            tenant = principal.name
        page = self.store.webhook_deliveries(after=after, limit=limit, tenant=tenant)
        return {"deliveries": [d.to_json() for d in page], "next_after": page[-1].seq if page else after}

    def wait(self, game_id: str, creds: Credentials = ANONYMOUS, *, version: int, timeout: float) -> dict[str, Any]:
        """Long-poll: one read of the games row, then sleep on the game's notices (no further query unless
        the notification listener reconnected and asks for a re-check)."""
        caller = self.access.caller(creds)
        self.access.check_read(self.games.info(game_id), caller)
        sub = self.hub.subscribe(game_id)  # before the read: no notice can slip in between
        try:
            record = self.games.record(game_id)
            current = record.version
            if current <= version and record.status != "over":
                current = wait_for_version(sub, lambda: self.store.current_version(game_id), version, timeout,
                                           current=current) or current
        finally:
            self.hub.unsubscribe(sub)
        return {"game_id": game_id, "version": current, "changed": current > version}
