"""The service's error hierarchy.

Every failure a caller can cause is one of these values. They carry a stable machine-readable
``code`` and the HTTP status they map to, but nothing below the HTTP layer ever builds a response:
``http/problems.py`` turns them into RFC 9457 problem details in exactly one place.
"""

from __future__ import annotations

from torres_service.errors import ServiceError, ValidationFailed

__all__ = ["ServiceError", "ValidationFailed"]  # the kit's bases, re-exported with this service's errors






class Unauthenticated(ServiceError):
    """No credentials were presented where some are required."""

    status, code, title = 401, "unauthenticated", "Credentials are required"


class Forbidden(ServiceError):
    """Credentials were presented but do not grant this operation."""

    status, code, title = 403, "forbidden", "Not allowed"


class NotYourTurn(Forbidden):
    """The seat is valid but another seat is to move."""

    code, title = "not_your_turn", "It is not this seat's turn"


class NotFound(ServiceError):
    status, code, title = 404, "not_found", "No such resource"


class GameNotFound(NotFound):
    code, title = "game_not_found", "No such game"


class VersionConflict(ServiceError):
    """An append whose expected version is not the stream's current version.

    This is the one error a stale append raises, whichever backend detected it (a row lock, a
    unique index). ``current_version`` lets the client refetch and retry.
    """

    status, code, title = 409, "version_conflict", "The game has moved on"

    def __init__(self, detail: str | None = None, *, current_version: int) -> None:
        super().__init__(detail, current_version=current_version)
        self.current_version = current_version


class CommandIdReused(ServiceError):
    """A command id was sent again with a different request body."""

    status, code, title = 409, "command_id_reused", "This command id was used for a different request"


class IdempotencyKeyReused(ServiceError):
    """An Idempotency-Key was sent again with a different request, or its game can no longer be replayed."""

    status, code, title = 409, "idempotency_key_reused", "This Idempotency-Key was used for a different request"


class ExternalIdReused(IdempotencyKeyReused):
    """A portal's ``external_id`` for a game sent again with another game's settings, seats or labels."""

    code, title = "external_id_reused", "This external_id names a game with other settings"


class GameOver(ServiceError):
    status, code, title = 409, "game_over", "The game is over"


class IllegalActionError(ServiceError):
    """The rules package refused the action; ``detail`` is the rule's own message."""

    status, code, title = 422, "illegal_action", "The action is not legal"


class NotReady(ServiceError):
    status, code, title = 503, "not_ready", "The service is not ready"


#: Seconds a client is told to wait before it retries a request the database could not serve: a failover puts a
#: new primary in place within about 10-13 s (docs/operations.md, "Failover"), so a client retrying this often
#: finds it after a few tries without flooding the proxy meanwhile.
STORE_RETRY_AFTER = 2


class StoreUnavailable(ServiceError):
    """The database could not serve the request: unreachable, its connection lost mid-request, or no longer the
    primary (a failover, a restart). Nothing the caller did, so a 503 rather than a 500: an action caught by it
    may or may not have been applied, and retried with the same ``command_id`` it is applied exactly once."""

    status, code, title = 503, "store_unavailable", "The database is unavailable; retry with the same command_id"
    headers = (("Retry-After", str(STORE_RETRY_AFTER)),)


class TimeUp(ServiceError):
    """The seat's clock ran out before this request: the timeout policy applies instead."""

    status, code, title = 409, "time_up", "The seat's time is up"


class UndoUnavailable(ServiceError):
    """Nothing of this turn may be taken back (no action yet, or something hidden was revealed since)."""

    status, code, title = 409, "undo_unavailable", "Nothing to undo"


class UndoDisabled(ServiceError):
    status, code, title = 409, "undo_disabled", "Undo is switched off for this game"


class SeatForfeited(ServiceError):
    """The seat resigned or forfeited on time: it takes no further part."""

    status, code, title = 409, "seat_forfeited", "The seat has left the game"


class SeatPlayedByAi(NotYourTurn):
    code, title = "seat_played_by_ai", "The AI plays this seat after a timeout"


class SeatTokenExpired(Unauthenticated):
    """A seat token past its lifetime (``TORRES_SEAT_TOKEN_TTL``) or its game's end plus the grace: the tenant
    reissues one (``POST /v1/games/<id>/seats/<seat>/token``)."""

    code, title = "seat_token_expired", "The seat token has expired"


class SeatTokenRevoked(Unauthenticated):
    """A seat token that was revoked or superseded by a reissue: only the seat's newest token counts."""

    code, title = "seat_token_revoked", "The seat token was revoked or reissued"


class StreamTicketInvalid(Unauthenticated):
    """A stream ticket that is unknown, already used, expired, or for another game: tickets open one stream."""

    code, title = "invalid_stream_ticket", "The stream ticket is invalid, used or expired"


class SeatTokensReissued(IdempotencyKeyReused):
    """An Idempotency-Key replay of a game whose seat tokens were reissued or revoked since: the original tokens
    no longer open anything, and the current ones were handed out once and are not stored."""

    code, title = "seat_tokens_reissued", "The game's seat tokens were reissued or revoked since its creation"


class SeatHasNoToken(ServiceError):
    """A token reissue or revocation for an AI seat: only human seats have tokens."""

    status, code, title = 409, "seat_has_no_token", "This seat has no token"


class GameRunning(ServiceError):
    """An analysis asked of a game still in play: it would be a cheating aid (a better turn, every seat's chances)."""

    status, code, title = 409, "game_running", "The game is still running; it can be analysed once it is over"


class AnalysisNotFound(NotFound):
    code, title = "analysis_not_found", "No analysis of this game at this depth was requested"


class AnalysisUnavailable(ServiceError):
    """No analysis engine is installed beside the service (the AI worker's package declares it)."""

    status, code, title = 503, "analysis_unavailable", "This deployment has no analysis engine"
