"""Who may do what: service key, admin key, seat tokens.

Credentials are plain values read by the HTTP layer; this module decides what they grant and
raises :mod:`torres_game.errors` values otherwise. Keys and token hashes are compared in constant
time; tokens are stored only as SHA-256 hashes.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass

from .config import Config
from .errors import Forbidden, NotFound, Unauthenticated
from .redaction import Reader
from .store.base import GameRecord, GameSecret


@dataclass(frozen=True)
class Credentials:
    """What the caller presented: the service key, the admin key and/or a seat token."""

    api_key: str | None = None
    admin_key: str | None = None
    token: str | None = None


@dataclass(frozen=True)
class GameInfo:
    """The parts of a game that never change after creation (safe to cache per process)."""

    record: GameRecord
    secret: GameSecret

    def seat_kind(self, seat: int) -> str | None:
        seats = self.record.seats
        return seats[seat]["kind"] if 0 <= seat < len(seats) else None


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _same(given: str | None, expected: str) -> bool:
    return given is not None and hmac.compare_digest(given.encode(), expected.encode())


class Access:
    def __init__(self, config: Config) -> None:
        self.config = config

    def require_service(self, creds: Credentials) -> None:
        if creds.api_key is None:
            raise Unauthenticated("send the service key in X-API-Key")
        if not _same(creds.api_key, self.config.api_key):
            raise Forbidden("wrong service key")

    def is_admin(self, creds: Credentials) -> bool:
        """False without an admin key; a wrong one is refused rather than ignored."""
        if creds.admin_key is None:
            return False
        if not _same(creds.admin_key, self.config.admin_key):
            raise Forbidden("wrong admin key")
        return True

    def seat_of_token(self, info: GameInfo, token: str) -> int:
        digest = token_hash(token)
        for seat, expected in enumerate(info.secret.token_hashes):
            if expected is not None and hmac.compare_digest(digest, expected):
                return seat
        raise Forbidden("this token does not belong to a seat of this game")

    def reader(self, info: GameInfo, creds: Credentials, *, over: bool, seat: int | None = None) -> Reader:
        """Who reads the log: admin or game over → everything; a seat; or a spectator."""
        full = self.is_admin(creds) or over
        return Reader(full=full, seat=self.optional_seat(info, creds, seat))

    def optional_seat(self, info: GameInfo, creds: Credentials, seat: int | None) -> int | None:
        """A seat token names its seat; the service key may name an AI seat (the admin key any
        seat); no credentials: a spectator (None)."""
        if creds.token is not None:
            own = self.seat_of_token(info, creds.token)
            if seat is not None and seat != own:
                raise Forbidden(f"this token is for seat {own}, not seat {seat}")
            return own
        if seat is None:
            return None
        if self.is_admin(creds):
            if info.seat_kind(seat) is None:
                raise NotFound(f"no seat {seat}")
            return seat
        self.require_service(creds)
        if info.seat_kind(seat) != "ai":
            raise Forbidden("the service key may act only for AI seats")
        return seat

    def actor(self, info: GameInfo, creds: Credentials, seat: int) -> int:
        """The seat an action is submitted for: its own token, or the service key for an AI seat."""
        if creds.token is not None:
            own = self.seat_of_token(info, creds.token)
            if seat != own:
                raise Forbidden(f"this token is for seat {own}, not seat {seat}")
            return seat
        if creds.api_key is not None:
            self.require_service(creds)
            if info.seat_kind(seat) != "ai":
                raise Forbidden("the service key may act only for AI seats")
            return seat
        raise Unauthenticated("send Authorization: Bearer <seat token>")
