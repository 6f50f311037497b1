"""Credentials that are not the request's own: seat tokens (reissued, revoked, and the per-process cache of
their rows), spectator tokens and single-use stream tickets. Who may do what with them is :mod:`.access`."""

from __future__ import annotations

import hmac
import logging
import secrets
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from torres_online.lifecycle import format_time

from .access import SPECTATOR_TTL_DEFAULT, Access, Credentials, GameInfo, SeatCredential, SeatTokens, token_hash
from .clock import Clock
from .config import Config
from .errors import GameNotFound, NotFound, SeatHasNoToken, StreamTicketInvalid, Unauthenticated
from .folding import GameStates
from .queries import summary_of
from .redaction import Reader
from .store.base import EventStore, SeatTokenBook, StreamTicket
from .waiting import Notice, SeatTokensChanged, WakeHub

log = logging.getLogger("torres_game.service")  # the service's one logger name, which log pipelines select on


class SeatTokenBooks:
    """Each game's seat tokens as this process last read them (current, superseded), and when."""

    def __init__(self, store: EventStore, config: Config, hub: WakeHub, clock: Clock, *, listening: bool) -> None:
        self.store = store
        self.config = config
        self.hub = hub
        self.clock = clock
        self._listening = listening
        self._books: dict[str, tuple[tuple[SeatCredential, ...], tuple[SeatCredential, ...], float]] = {}
        self._lock = threading.Lock()
        self._changes = 0  # bumped whenever a notice may have changed some game's seat tokens

    def seat_tokens(self, info: GameInfo, max_age: float = 0.0) -> SeatTokens:
        """The game's seat tokens now, from its ``seat_tokens`` rows as this process read them at most
        ``max_age`` seconds ago (0: read them now, one query), so that a revocation or reissue in any process
        counts everywhere within that age: reads pass ``seat_token_recheck``; an action passes any age, as its
        append checks the token's generation again under its lock. Generation 0 is the token of the creation
        (its hash in the cached, immutable :class:`GameSecret`); a token expires ``seat_token_ttl`` after it
        was issued, and never later than its game's end plus ``seat_token_grace``."""
        game_id = info.record.game_id
        cached = self._books.get(game_id) if max_age > 0 else None
        if cached is None or (time.monotonic() - cached[2] > max_age and not self._pushed()):
            changes, read_at = self._changes, time.monotonic()
            book = self.store.seat_token_book(game_id)
            if book is None:
                raise GameNotFound(f"no game {game_id}")
            cached = (*self._credentials(info, book), read_at)
            with self._lock:
                if len(self._books) > 4 * self.config.state_cache_size:
                    self._books.clear()
                if changes == self._changes:  # else a change was announced during the read: keep nothing
                    self._books[game_id] = cached
        return SeatTokens(cached[0], cached[1], self.clock())

    def _pushed(self) -> bool:
        """Whether every change of seat tokens reaches :meth:`forget` now: on SQLite (one process, announced
        in-process), or while the PostgreSQL listener is connected. Otherwise reads fall back to
        ``seat_token_recheck``."""
        if not self._listening:
            return False
        listener = self.hub.listener
        return listener is None or listener.connected.is_set()

    def forget(self, game_id: str | None, notice: Any) -> None:
        """The hub's watcher: a game's seat tokens were reissued or revoked (in any process), or the game ended
        (its end bounds every token's expiry), or notices may have been missed (``game_id`` None): the rows this
        process read are no longer to be trusted."""
        if game_id is None or isinstance(notice, SeatTokensChanged) or (
                isinstance(notice, Notice) and notice.status == "over"):
            with self._lock:
                self._changes += 1
                if game_id is None:
                    self._books.clear()
                else:
                    self._books.pop(game_id, None)

    def ended(self, game_id: str) -> None:
        """This process appended the game's end, which bounds every seat token's expiry: its reads judge on
        the new rows."""
        self._books.pop(game_id, None)

    def announce(self, game_id: str) -> None:
        """Every process forgets the game's seat-token rows it read: this one at once; on PostgreSQL the others
        when the transaction's notice reaches their listeners (and this one's again)."""
        if self.hub.listener is None:  # SQLite: announced in-process, to this service's watcher among others
            self.hub.announce(game_id, SeatTokensChanged(game_id))
        else:
            self.forget(game_id, SeatTokensChanged(game_id))

    def _credentials(self, info: GameInfo, book: SeatTokenBook
                     ) -> tuple[tuple[SeatCredential, ...], tuple[SeatCredential, ...]]:
        """Each seat's current token and the superseded ones, from the rows as read (kept with them: a read within
        the recheck window then costs no work)."""
        ttl = timedelta(seconds=self.config.seat_token_ttl)
        cap = book.updated_at + timedelta(seconds=self.config.seat_token_grace) if book.status == "over" else None

        def bounded(expires_at: datetime | None) -> datetime | None:
            return expires_at if cap is None or expires_at is None else min(expires_at, cap)

        created = datetime.fromisoformat(info.record.created_at)
        current = {seat: SeatCredential(seat, 0, digest, bounded(created + ttl))
                   for seat, digest in enumerate(info.secret.token_hashes) if digest is not None}
        superseded: list[SeatCredential] = []
        for row in book.rows:  # ascending generations
            if row.seat in current:
                superseded.append(current[row.seat])
            current[row.seat] = SeatCredential(row.seat, row.generation, row.token_hash, bounded(row.expires_at))
        return tuple(current.values()), tuple(superseded)


@dataclass(eq=False)
class CredentialDesk:
    """The use cases that hand out or withdraw a credential: seat tokens, spectator tokens, stream tickets."""

    store: EventStore
    config: Config
    access: Access
    games: GameStates
    books: SeatTokenBooks
    clock: Clock

    def spectator_token(self, game_id: str, creds: Credentials, *, ttl: int = SPECTATOR_TTL_DEFAULT) -> dict[str, Any]:
        """A token that reads this game as a spectator until it expires (the tenant's key with ``games``, or the
        admin key): how a portal lets someone watch a private game without a seat."""
        caller = self.access.caller(creds)
        info = self.games.info(game_id)
        if not caller.operator:
            self.access.seat_admin(info, caller)
        token, expires = self.access.issue_spectator_token(info, ttl)
        return {"game_id": game_id, "token": token,
                "expires_at": format_time(datetime.fromtimestamp(expires, UTC))}

    def _token_seat(self, game_id: str, creds: Credentials, seat: int) -> GameInfo:
        """Reissuing or revoking a seat's token: the game's tenant (key with ``games``) or the operator; a human
        seat of the game. The key is checked before the game is looked up (401 whether it exists or not)."""
        caller = self.access.caller(creds)
        info = self.games.info(game_id)
        if not caller.operator:
            self.access.seat_admin(info, caller)
        kind = info.seat_kind(seat)
        if kind is None:
            raise NotFound(f"no seat {seat}")
        if kind != "human":
            raise SeatHasNoToken(f"seat {seat} is an AI seat: it has no token")
        return info

    def reissue_seat_token(self, game_id: str, creds: Credentials, *, seat: int) -> dict[str, Any]:
        """A new random token for the seat (a player who lost theirs), returned this once; every earlier one
        of the seat is superseded at once, in every process (401 ``seat_token_revoked``). Never derived: an
        Idempotency-Key replay could not hand it out again, and refuses instead (409 ``seat_tokens_reissued``)."""
        info = self._token_seat(game_id, creds, seat)
        token = secrets.token_urlsafe(24)
        now = self.clock()
        expires = now + timedelta(seconds=self.config.seat_token_ttl)
        generation = self.store.add_seat_token(game_id, seat, token_hash(token), issued_at=now, expires_at=expires)
        self.books.announce(game_id)
        current = next(c for c in self.books.seat_tokens(info, 0).current if c.seat == seat)
        log.info("seat token reissued", extra={"game_id": game_id, "seat": seat, "generation": generation})
        return {"game_id": game_id, "seat": seat, "generation": generation, "token": token,
                "expires_at": format_time(current.expires_at or expires)}

    def revoke_seat_token(self, game_id: str, creds: Credentials, *, seat: int) -> dict[str, Any]:
        """The seat has no valid token until one is reissued (every earlier one: 401 ``seat_token_revoked``);
        the seat stays in the game, its clock runs as before."""
        self._token_seat(game_id, creds, seat)
        generation = self.store.add_seat_token(game_id, seat, None, issued_at=self.clock(), expires_at=None)
        self.books.announce(game_id)
        log.info("seat token revoked", extra={"game_id": game_id, "seat": seat, "generation": generation})
        return {"game_id": game_id, "seat": seat, "generation": generation, "revoked": True}

    def stream_ticket(self, game_id: str, creds: Credentials) -> dict[str, Any]:
        """A single-use ticket for ``/stream`` or ``/ws`` (``?stream_ticket=``) standing for the caller as a
        reader of this game: what a browser, whose EventSource and WebSocket cannot send headers, puts in the
        URL instead of its seat token. Random, stored as its SHA-256, valid ``stream_ticket_ttl`` seconds."""
        caller = self.access.caller(creds)
        info = self.games.info(game_id)
        if caller.token is None and caller.principal is None and not caller.operator:
            raise self.access._hidden(info, Unauthenticated(
                "a stream ticket needs a credential: a seat or spectator token, an API key or the admin key"))
        reader = self.access.reader(info, caller, over=False)
        ticket = secrets.token_urlsafe(24)
        ttl = self.config.stream_ticket_ttl
        self.store.add_stream_ticket(token_hash(ticket), StreamTicket(
            game_id, reader.seat, reader.full, self.clock() + timedelta(seconds=ttl)))
        # The matchmaker's stream tickets answer the same shape (docs/matchmaking.md): one client code path.
        return {"game_id": game_id, "stream_ticket": ticket, "expires_in": int(ttl),
                "stream_url": f"/v1/games/{game_id}/stream?stream_ticket={ticket}"}

    def stream_opening(
        self, game_id: str, creds: Credentials, ticket: str | None = None
    ) -> tuple[dict[str, Any], Reader]:
        """What a stream (SSE or WebSocket) opens with: the game's summary and its reader, from the headers'
        credentials (the read gate of every read) or from a stream ticket, which is consumed here. A key sent
        beside a ticket must hold as on any request (an unknown or revoked key 401, a wrong admin key 403,
        another tenant's key 404): a ticket is no reason to ignore a credential that does not verify. Checked
        before the ticket is taken, so a refused request leaves it usable."""
        if ticket is not None:
            caller = self.access.caller(creds)
            if caller.principal is not None:
                self.access.owned(self.games.info(game_id), caller.principal)
            reader = self.redeem_stream_ticket(game_id, ticket)
            return summary_of(self.games.record(game_id)), reader
        caller = self.access.caller(creds)
        reader = self.access.reader(self.games.info(game_id), caller, over=False)
        return summary_of(self.games.record(game_id)), reader

    def redeem_stream_ticket(self, game_id: str, ticket: str) -> Reader:
        """The reader a ticket stands for, consumed (deleted) whatever the outcome: 401 ``invalid_stream_ticket``
        when it is unknown, used, expired or another game's."""
        taken = self.store.take_stream_ticket(token_hash(ticket))
        if taken is None or not hmac.compare_digest(taken.game_id.encode(), game_id.encode()) \
                or self.clock() >= taken.expires_at:
            raise StreamTicketInvalid("this stream ticket is unknown, used, expired or for another game")
        return Reader(full=taken.full, seat=taken.seat)
