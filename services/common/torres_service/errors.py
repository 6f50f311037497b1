"""The base of every service's error hierarchy.

Every failure a caller can cause is a value with a stable machine-readable ``code`` and the HTTP status it maps
to; nothing below the HTTP layer builds a response: `problems.py` turns them into problem details in one place.
"""

from __future__ import annotations

from typing import Any


class ServiceError(Exception):
    """Base class: a failure with a stable ``code`` and an HTTP-ish ``status``."""

    status: int = 500
    code: str = "internal_error"
    title: str = "Internal error"

    def __init__(self, detail: str | None = None, **extras: Any) -> None:
        super().__init__(detail or self.title)
        self.detail = detail or self.title
        self.extras = extras


class ValidationFailed(ServiceError):
    """The request is malformed: bad JSON, unknown or invalid fields."""

    status, code, title = 400, "validation_failed", "The request is malformed"


class MalformedId(ServiceError):
    """An identifier in the path breaks its kind's rule (:mod:`torres_service.fields`)."""

    status, code, title = 400, "malformed_id", "The id in the path is malformed"


class InvalidInput(ServiceError):
    """A value the store cannot hold got past the edge checks; still the caller's input, never a 500."""

    status, code, title = 400, "invalid_input", "The request holds a value that cannot be stored"
