"""The service's error hierarchy: stable ``code`` + HTTP status, mapped to problem details once."""

from __future__ import annotations

from torres_service.errors import MalformedId, ServiceError, ValidationFailed

__all__ = ["MalformedId", "ServiceError", "ValidationFailed"]  # the kit's bases, re-exported with this service's errors






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


class ServiceUnavailable(ServiceError):
    status, code, title = 503, "unavailable", "Try again"


class GameServiceError(Exception):
    """The game service did not answer, or failed (5xx): the same request may still succeed later."""


class GameRefused(GameServiceError):
    """The game service answered 4xx: this request will never create a game, however often it is sent."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status
