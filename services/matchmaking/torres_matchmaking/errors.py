"""The service's error hierarchy: stable ``code`` + HTTP status, mapped to problem details once."""

from __future__ import annotations

from torres_service.errors import MalformedId, ServiceError, ValidationFailed

__all__ = ["MalformedId", "ServiceError", "ValidationFailed"]  # the kit's bases, re-exported with this service's errors


# -- who is calling: the kit's InvalidCredentials / InvalidPlayerToken answer bad credentials ----------

class MissingPlayerToken(ServiceError):
    """No ``Authorization: Bearer <player token>``: a ticket is always some player's, and the body never says
    whose (RFC 6750 3: a request without credentials gets the challenge, no error code)."""

    status, code, title = 401, "unauthenticated", "A player token is required"
    headers = (("WWW-Authenticate", 'Bearer realm="torres"'),)


class MissingApiKey(ServiceError):
    """No ``X-API-Key`` where only a portal (tenant) may call."""

    status, code, title = 401, "unauthenticated", "The portal's API key is required"
    headers = (("WWW-Authenticate", 'ApiKey realm="torres", header="X-API-Key"'),)


class InvalidStreamTicket(ServiceError):
    """A ``stream_ticket`` that is unknown, expired, already used or issued for another ticket."""

    status, code, title = 401, "invalid_stream_ticket", "The stream ticket is not valid"
    headers = (("WWW-Authenticate", 'Bearer realm="torres"'),)


class Forbidden(ServiceError):
    """Valid credentials that do not grant this: a player reading another player's rating, a key and a player
    token of two different tenants in one request, an internal key where a portal's is needed."""

    status, code, title = 403, "forbidden", "These credentials do not allow this"


class DevIssuerUnavailable(ServiceError):
    """The dev issuer signs with the tenant's HS256 secret; this tenant has none (its portal signs with its own
    keys, a JWKS) or issues no player tokens at all."""

    status, code, title = 409, "dev_issuer_unavailable", "This tenant's player tokens cannot be issued here"


class TicketNotFound(ServiceError):
    status, code, title = 404, "ticket_not_found", "No such ticket"


class LiveTicketExists(ServiceError):
    """A player has at most one live (queued or being matched) ticket."""

    status, code, title = 409, "live_ticket_exists", "The player already has a live ticket"


class TicketNotCancellable(ServiceError):
    """Only a queued ticket can be cancelled; one being matched or finished cannot."""

    status, code, title = 409, "ticket_not_cancellable", "The ticket is no longer queued"


class NotReady(ServiceError):
    status, code, title = 503, "not_ready", "The service is not ready"


class StoreUnavailable(ServiceError):
    """The matchmaker's Redis could not serve the request: its master was lost and Sentinel is promoting a replica
    (2-3 s), or a connection broke with it. A 503, not a 500: the same request again after ``Retry-After`` reaches
    the new master (a ticket created twice is refused 409 ``live_ticket_exists``, naming the first)."""

    status, code, title = 503, "store_unavailable", "The matchmaker's store is unavailable; retry"
    headers = (("Retry-After", "1"),)


class ServiceUnavailable(ServiceError):
    status, code, title = 503, "unavailable", "Try again"


class GameServiceError(Exception):
    """The game service did not answer, or failed (5xx): the same request may still succeed later."""


class GameRefused(GameServiceError):
    """The game service answered 4xx: this request will never create a game, however often it is sent."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status
