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
