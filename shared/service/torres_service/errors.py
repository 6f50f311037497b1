"""The base of every service's error hierarchy.

Every failure a caller can cause is a value with a stable machine-readable ``code`` and the HTTP status it maps
to; nothing below the HTTP layer builds a response: `problems.py` turns them into problem details in one place.
"""

from __future__ import annotations

from typing import Any


class ServiceError(Exception):
    """Base class: a failure with a stable ``code`` and an HTTP-ish ``status``; ``headers`` are response headers
    the status calls for (a 401's ``WWW-Authenticate``)."""

    status: int = 500
    code: str = "internal_error"
    title: str = "Internal error"
    headers: tuple[tuple[str, str], ...] = ()

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


# -- the input guard (torres_service.limits): what a request may be before any parser or view sees it ----------

class PayloadTooLarge(ServiceError):
    """The body is longer than ``TORRES_MAX_BODY_BYTES``; ``limit`` is that many bytes."""

    status, code, title = 413, "payload_too_large", "The request body is too large"


class UnsupportedMediaType(ServiceError):
    """A body that is not ``application/json`` (or ``application/*+json``) in UTF-8: reading it as JSON anyway
    would answer field errors about a body the client never meant as JSON."""

    status, code, title = 415, "unsupported_media_type", "The request body must be JSON"


class UriTooLong(ServiceError):
    """The request target (path and query) is longer than ``TORRES_MAX_URL_BYTES``."""

    status, code, title = 414, "uri_too_long", "The URL is too long"


class HeadersTooLarge(ServiceError):
    """One header line is longer than ``TORRES_MAX_HEADER_BYTES``, or there are more than ``TORRES_MAX_HEADERS``."""

    status, code, title = 431, "headers_too_large", "The request's header fields are too large"


class JsonTooDeep(ValidationFailed):
    """Arrays and objects nested deeper than ``TORRES_JSON_MAX_DEPTH``: the standard parser recurses once per
    level and fails with ``RecursionError`` near 1 000."""

    code, title = "json_too_deep", "The JSON body is nested too deeply"


class JsonNumberTooLong(ValidationFailed):
    """A number literal longer than ``TORRES_JSON_MAX_NUMBER_LENGTH`` characters: converting an integer of more
    than 4 300 digits raises ``ValueError``, and shorter ones cost quadratic time."""

    code, title = "json_number_too_long", "A number in the JSON body is too long"


class JsonNotFinite(ValidationFailed):
    """``NaN``, ``Infinity`` or ``-Infinity`` (which JSON does not have, but Python's parser takes), or a
    literal beyond the double range (``1e999``, which would become infinity)."""

    code, title = "json_not_finite", "A number in the JSON body is not finite"


class JsonDuplicateKey(ValidationFailed):
    """An object with the same key twice: parsers disagree on which one counts (Python's takes the last), so
    a proxy or a signature check may have seen another request than the one served."""

    code, title = "json_duplicate_key", "An object in the JSON body repeats a key"


class UnsupportedAuthorization(ServiceError):
    """An ``Authorization`` header that is present but not ``Bearer <token>`` (RFC 6750): ignoring it would
    serve the request with whatever other credentials came along, not the ones the client meant."""

    status, code, title = 401, "unsupported_authorization", "The Authorization header is not understood"
    headers = (("WWW-Authenticate", "Bearer"),)
