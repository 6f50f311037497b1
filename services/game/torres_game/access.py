"""Who may do what: tenants' and internal services' API keys, the operator's admin key, seat tokens and
spectator tokens (the whole model in docs/security.md, "Tenants, keys and visibility").

Credentials are plain values read by the HTTP layer; this module decides what they grant and raises
:mod:`torres_game.errors` values otherwise.

* An API key (``X-API-Key``) is looked up in the tenants registry (:mod:`torres_service.principals`): it names a
  **tenant** (a portal) or an **internal** service, with scopes. A tenant's key acts only on its own games: on
  another tenant's game it gets 404 ``game_not_found``, exactly as a game that does not exist, so a key reveals
  nothing about other portals. An unknown or revoked key is 401 ``invalid_credentials`` whatever the game, checked
  before the game is looked up (so it cannot tell a hidden game from a missing one either).
* The operator's admin key (``X-Admin-Key``, one per deployment) reads and lists everything.
* A seat token names its seat of one game; only its SHA-256 is stored. It expires (``TORRES_SEAT_TOKEN_TTL``, and
  its game's end plus ``TORRES_SEAT_TOKEN_GRACE``), and the game's tenant may reissue or revoke it: a seat's
  newest generation is its only valid token, checked on every use against rows re-read every time (so a
  revocation counts at once in every process): 401 ``seat_token_expired`` / ``seat_token_revoked``.
* A spectator token (a JWT the game's tenant asks for, :meth:`Access.issue_spectator_token`) lets its holder
  read one game as a spectator until it expires.

A game's visibility decides what anonymous readers get: ``public`` and ``unlisted`` games are open to anyone who
knows the id (spectator view, redacted log); a ``private`` game answers 404 to every request that no credential
above grants, so its existence is not revealed. Token hashes are compared in constant time.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

import jwt

from torres_service.principals import (
    TENANTS_FILE,
    TENANTS_RELOAD,
    WEBHOOK_SECRET,
    WEBHOOK_URL,
    MissingScope,
    Principal,
    Registries,
)

from .config import Config
from .errors import (
    Forbidden,
    GameNotFound,
    NotFound,
    SeatTokenExpired,
    SeatTokenRevoked,
    Unauthenticated,
    ValidationFailed,
)
from .redaction import Reader
from .store.base import GameRecord, GameSecret

#: The AI workers' principal. They play through :class:`torres_game.service.GameService` in their own process,
#: with the database's credentials: no API key of theirs could be worth more than that, so none is presented,
#: and no portal's key (nor the single-key default) is needed to drive AI seats.
IN_PROCESS_AI = Principal("ai-worker", "in-process", frozenset({"ai"}), internal=True)

SPECTATOR_ISSUER = "torres-game"
SPECTATOR_AUDIENCE = "torres-spectator"
SPECTATOR_TTL_DEFAULT = 3600
SPECTATOR_TTL_MAX = 7 * 86400  # a correspondence game may run for days; a week bounds a leaked token's worth


@dataclass(frozen=True)
class Credentials:
    """What the caller presented: an API key, the admin key and/or a bearer token (a seat's or a spectator's).
    ``principal`` is set only by in-process callers that are trusted by construction (:data:`IN_PROCESS_AI`);
    the HTTP layer never sets it."""

    api_key: str | None = None
    admin_key: str | None = None
    token: str | None = None
    principal: Principal | None = None


@dataclass(frozen=True)
class Caller:
    """The game-independent part of a request's credentials, checked before the game is looked up."""

    creds: Credentials
    principal: Principal | None  # the API key's holder, or None without one
    operator: bool  # the deployment's admin key

    @property
    def token(self) -> str | None:
        return self.creds.token


@dataclass(frozen=True)
class GameInfo:
    """The parts of a game that never change after creation (safe to cache per process)."""

    record: GameRecord
    secret: GameSecret

    def seat_kind(self, seat: int) -> str | None:
        seats = self.record.seats
        return seats[seat]["kind"] if 0 <= seat < len(seats) else None

    @property
    def private(self) -> bool:
        return self.record.visibility == "private"


@dataclass(frozen=True)
class SeatCredential:
    """One generation of a seat's token: its hash (None: a revocation) and when it stops being valid."""

    seat: int
    generation: int
    token_hash: str | None
    expires_at: datetime | None


@dataclass(frozen=True)
class SeatTokens:
    """A game's seat tokens as of ``now``: each seat's newest generation, and every older (superseded) one, which
    is kept only to answer its holder 401 ``seat_token_revoked`` rather than "not a token of this game"."""

    current: tuple[SeatCredential, ...]
    superseded: tuple[SeatCredential, ...]
    now: datetime

    @classmethod
    def created(cls, info: GameInfo, max_age: float = 0.0) -> SeatTokens:
        """The tokens a game was created with, never expiring: what :class:`Access` uses without a loader."""
        return cls(tuple(SeatCredential(seat, 0, digest, None) for seat, digest in
                         enumerate(info.secret.token_hashes) if digest is not None), (), datetime.now(UTC))


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _same(given: str | None, expected: str) -> bool:
    return given is not None and hmac.compare_digest(given.encode(), expected.encode())


def _holder(tokens: SeatTokens, digest: str) -> tuple[SeatCredential, bool] | None:
    """The generation whose hash is ``digest``, and whether it was superseded; None for a token of no seat."""
    for current in tokens.current:
        if current.token_hash is not None and hmac.compare_digest(digest, current.token_hash):
            return current, False
    for old in tokens.superseded:
        if old.token_hash is not None and hmac.compare_digest(digest, old.token_hash):
            return old, True
    return None


def _is_jwt(token: str) -> bool:
    """Seat tokens are URL-safe base64 (no dots); a spectator token is a JWT (three dot-separated parts)."""
    return token.count(".") == 2


class Access:
    def __init__(
        self, config: Config, registries: Registries | None = None,
        seat_tokens: Callable[[GameInfo, float], SeatTokens] | None = None,
    ) -> None:
        self.config = config
        #: The game's seat tokens as read at most ``max_age`` seconds ago (the service reads its ``seat_tokens``
        #: rows; 0: now): ``seat_token_recheck`` for reads, any age for an action (its append checks again).
        self.seat_tokens: Callable[[GameInfo, float], SeatTokens] = seat_tokens or SeatTokens.created
        self.registries = registries or Registries.from_env(
            {TENANTS_FILE.var: config.tenants_file, TENANTS_RELOAD.var: str(config.tenants_reload),
             WEBHOOK_URL.var: config.webhook_url, WEBHOOK_SECRET.var: config.webhook_secret},
            api_key=config.api_key)
        # Spectator tokens are signed with a key derived from the operator's admin key: every replica of a
        # deployment already shares it, so no further secret is needed; changing it revokes them all.
        self._spectator_key = hmac.new(config.admin_key.encode(), b"torres spectator tokens v1",
                                       hashlib.sha256).digest()

    # -- who is calling (independent of any game) ---------------------------------------------------------

    def caller(self, creds: Credentials) -> Caller:
        """401 for an API key nobody holds, 403 for a wrong admin key: both before any game is looked up."""
        principal = creds.principal
        if principal is None and creds.api_key is not None:
            principal = self.registries.principal(creds.api_key)
        return Caller(creds, principal, self.is_admin(creds))

    def is_admin(self, creds: Credentials) -> bool:
        """False without an admin key; a wrong one is refused rather than ignored."""
        if creds.admin_key is None:
            return False
        if not _same(creds.admin_key, self.config.admin_key):
            raise Forbidden("wrong admin key")
        return True

    @staticmethod
    def require(caller: Caller, scope: str) -> Principal:
        """The caller's principal, which must hold ``scope`` (401 without a key, 403 ``insufficient_scope``)."""
        if caller.principal is None:
            raise Unauthenticated("send an API key in X-API-Key")
        caller.principal.require(scope)
        return caller.principal

    @staticmethod
    def owned(info: GameInfo, principal: Principal) -> None:
        """A tenant's key sees only its own games: another tenant's is 404, as if it did not exist."""
        if not principal.internal and principal.tenant != info.record.tenant:
            raise GameNotFound(f"no game {info.record.game_id}")

    @staticmethod
    def _hidden(info: GameInfo, error: Exception) -> Exception:
        """What a refused caller gets: on a private game always 404 (nothing about it is revealed), else
        ``error``, the precise refusal."""
        return GameNotFound(f"no game {info.record.game_id}") if info.private else error

    # -- creating and listing ----------------------------------------------------------------------------

    def creation_tenant(self, caller: Caller, requested: str | None) -> str:
        """The tenant a new game belongs to: the creating key's own; an internal key with ``games`` (the
        matcher) names it in ``tenant``. A tenant's key may not create games for another tenant."""
        principal = self.require(caller, "games")
        if not principal.internal:
            if requested is not None and requested != principal.name:
                raise Forbidden("only an internal service's key creates games for another tenant")
            return principal.name
        if requested is None:
            raise ValidationFailed("an internal key creates games for a tenant: name it in 'tenant'",
                                   errors={"tenant": ["required with an internal service's key"]})
        if self.registries.current.tenant(requested) is None:
            raise ValidationFailed(f"no tenant {requested!r}", errors={"tenant": ["no such tenant"]})
        return requested

    def list_scope(self, caller: Caller) -> str | None:
        """Whose games a list shows: the operator's admin key every tenant's (None), a tenant's key with
        ``games`` its own. Anonymous callers and internal services list nothing."""
        if caller.operator:
            return None
        principal = self.require(caller, "games")
        if principal.internal:
            raise Forbidden("an internal service's key lists no games; use a tenant's key or the admin key")
        return principal.name

    # -- reading a game ---------------------------------------------------------------------------------

    def reads_as_owner(self, info: GameInfo, caller: Caller) -> bool:
        """The tenant's key (any game scope) or an internal AI principal: may read the game, private too."""
        principal = caller.principal
        if principal is None:
            return False
        self.owned(info, principal)
        if principal.internal:
            return principal.may("ai")
        return bool(principal.scopes & {"games", "admin", "ai"})

    def reads_full(self, info: GameInfo, caller: Caller) -> bool:
        """Everything in the log before the end: the operator, or the tenant's key with ``admin`` scope."""
        if caller.operator:
            return True
        principal = caller.principal
        return principal is not None and not principal.internal and principal.may("admin") \
            and principal.tenant == info.record.tenant

    def token_seat(self, info: GameInfo, caller: Caller) -> int | None:
        """The seat the bearer token names (None without a token, or for a valid spectator token); a token
        that grants nothing here is refused (404 on a private game, 403 otherwise)."""
        credential = self.token_credential(info, caller)
        return None if credential is None else credential.seat

    def token_credential(self, info: GameInfo, caller: Caller, *, max_age: float | None = None
                         ) -> SeatCredential | None:
        """The seat token's generation the bearer presents (see :meth:`token_seat`), judged on the seat-token
        rows as read at most ``max_age`` seconds ago (default ``seat_token_recheck``: a read; 0: now; an action
        passes ``math.inf``, as its append checks the generation again under its lock). Rows that do not know
        the token (one issued since) are read again at once."""
        token = caller.token
        if token is None:
            return None
        if _is_jwt(token):
            if self.spectator_token_valid(info, token):
                return None
            raise self._hidden(info, Forbidden("this token is not a spectator token of this game (or expired)"))
        digest = token_hash(token)
        age = self.config.seat_token_recheck if max_age is None else max_age
        tokens = self.seat_tokens(info, age)
        found = _holder(tokens, digest)
        if found is None and age > 0:
            tokens = self.seat_tokens(info, 0.0)
            found = _holder(tokens, digest)
        if found is None:
            raise self._hidden(info, Forbidden("this token does not belong to a seat of this game"))
        credential, superseded = found
        if superseded:
            raise SeatTokenRevoked(f"seat {credential.seat}'s token was revoked or reissued")
        if credential.expires_at is not None and tokens.now >= credential.expires_at:
            raise SeatTokenExpired(f"seat {credential.seat}'s token expired; the game's tenant reissues one")
        return credential

    def check_read(self, info: GameInfo, caller: Caller) -> int | None:
        """The gate of every read of a game (summary, view, state, events, legal actions, verify, wait,
        stream, WebSocket): another tenant's key → 404; a private game read by nobody entitled → 404, except
        the tenant's own key without a reading scope, which is told so (403 ``insufficient_scope``): the game
        is no secret to its owner. Returns the bearer token's seat, if any."""
        owner = self.reads_as_owner(info, caller)  # 404 for another tenant's key
        seat = self.token_seat(info, caller)
        if info.private and not (owner or caller.operator or caller.token is not None):
            principal = caller.principal
            if principal is not None and not principal.internal:
                raise MissingScope("this key reads none of its tenant's private games: it needs 'games', 'admin' "
                                   "or 'ai'", scope="games")
            raise GameNotFound(f"no game {info.record.game_id}")
        return seat

    def reader(self, info: GameInfo, caller: Caller, *, over: bool) -> Reader:
        """Who reads the log: full (operator, the tenant's admin scope, or the game is over); a seat; or a
        spectator."""
        seat = self.check_read(info, caller)
        return Reader(full=over or self.reads_full(info, caller), seat=seat)

    def optional_seat(self, info: GameInfo, caller: Caller, seat: int | None) -> int | None:
        """A seat token names its seat; a key with ``ai`` may name an AI seat, the admin key any seat; no
        credentials: a spectator (None)."""
        own = self.check_read(info, caller)
        if caller.token is not None and own is not None:
            if seat is not None and seat != own:
                raise Forbidden(f"this token is for seat {own}, not seat {seat}")
            return own
        if seat is None:
            return None
        if caller.operator:
            if info.seat_kind(seat) is None:
                raise NotFound(f"no seat {seat}")
            return seat
        self.ai_seat(info, caller, seat)
        return seat

    # -- acting ----------------------------------------------------------------------------------------

    def ai_principal(self, info: GameInfo, caller: Caller) -> Principal:
        """A key that may act for the game's AI seats: the tenant's with ``ai``, or an internal one with
        ``ai`` (any tenant's games)."""
        if caller.principal is None:
            raise self._hidden(info, Unauthenticated("send Authorization: Bearer <seat token>"))
        self.owned(info, caller.principal)
        caller.principal.require("ai")
        return caller.principal

    def ai_seat(self, info: GameInfo, caller: Caller, seat: int) -> None:
        """A key may name ``seat`` only with ``ai`` (:meth:`ai_principal`) and only when it is an AI seat."""
        self.ai_principal(info, caller)
        if info.seat_kind(seat) != "ai":
            raise Forbidden("the service key may act only for AI seats")

    def actor(self, info: GameInfo, caller: Caller, seat: int, *, max_age: float | None = None
              ) -> SeatCredential | None:
        """May the caller act for ``seat``: with the seat's own token (returned, for the append to check its
        generation again: :meth:`token_credential`), or a key with ``ai`` for an AI seat (None). A key sent beside
        a token still scopes the request to its tenant (another tenant's: 404)."""
        if caller.principal is not None:
            self.owned(info, caller.principal)
        if caller.token is not None:
            if _is_jwt(caller.token):
                if not self.spectator_token_valid(info, caller.token):
                    raise self._hidden(info, Forbidden("this token is not a spectator token of this game"))
                raise Forbidden("a spectator token only reads")
            own = self.token_credential(info, caller, max_age=max_age)
            assert own is not None  # not a spectator token (above)
            if seat != own.seat:
                raise Forbidden(f"this token is for seat {own.seat}, not seat {seat}")
            return own
        self.ai_seat(info, caller, seat)
        return None

    def game_admin(self, info: GameInfo, caller: Caller) -> Principal:
        """Ending a game: the tenant's key with ``games`` (an internal key with
        ``games``, the matcher, for any tenant's game: which games it created is not recorded)."""
        if caller.principal is None:
            raise self._hidden(info, Unauthenticated("send an API key in X-API-Key"))
        self.owned(info, caller.principal)
        caller.principal.require("games")
        return caller.principal

    def seat_admin(self, info: GameInfo, caller: Caller) -> Principal:
        """Handing out credentials for a game (reissuing or revoking a seat token, a spectator token): the game's
        own tenant only. An internal key with ``games`` (the matcher) creates games for any tenant and may end
        them, but is never the tenant: a leaked matcher key must not take over players' seats or open private
        games."""
        principal = self.game_admin(info, caller)
        if principal.internal:
            raise Forbidden("an internal key does not hand out a game's seat or spectator tokens; the game's "
                            "tenant does")
        return principal

    # -- spectator tokens --------------------------------------------------------------------------------

    def issue_spectator_token(self, info: GameInfo, ttl: int, *, now: float | None = None) -> tuple[str, int]:
        """A JWT (HS256, PyJWT) that reads this one game as a spectator until ``exp``; stateless, so it is
        revoked only by expiring (or by changing the admin key, which revokes every one)."""
        issued = int(time.time() if now is None else now)
        expires = issued + ttl
        claims = {"iss": SPECTATOR_ISSUER, "aud": SPECTATOR_AUDIENCE, "sub": info.record.game_id,
                  "ten": info.record.tenant, "iat": issued, "exp": expires, "jti": secrets.token_urlsafe(9)}
        return jwt.encode(claims, self._spectator_key, algorithm="HS256"), expires

    def spectator_token_valid(self, info: GameInfo, token: str) -> bool:
        try:
            claims = jwt.decode(token, self._spectator_key, algorithms=["HS256"], audience=SPECTATOR_AUDIENCE,
                                issuer=SPECTATOR_ISSUER, options={"require": ["exp", "iat", "sub", "aud", "iss"]})
        except jwt.InvalidTokenError:
            return False
        return claims["sub"] == info.record.game_id and claims.get("ten") == info.record.tenant
