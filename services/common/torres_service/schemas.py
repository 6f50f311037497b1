"""Schema bases: a body with an unknown field is refused (a typo must not be silently ignored); a query string
may carry extras (proxies and caches add some)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask_smorest import Blueprint
from marshmallow import EXCLUDE, INCLUDE, RAISE, Schema, fields


class StrictSchema(Schema):
    class Meta:
        unknown = RAISE


class QuerySchema(Schema):
    class Meta:
        unknown = EXCLUDE


class ProblemSchema(Schema):
    """RFC 9457 problem details as every service answers them; a service adds the extras of its own codes.
    Open to other members (RFC 9457 3.2 extension members), as a client must be."""

    class Meta:
        unknown = INCLUDE

    type = fields.String()
    title = fields.String()
    status = fields.Integer()
    detail = fields.String()
    code = fields.String()
    errors = fields.Dict(metadata={"description": "validation_failed only: field errors"})
    limit = fields.Integer(metadata={"description": "the input limit a request exceeded (413 payload_too_large, "
                                                    "414 uri_too_long, 431 headers_too_large, 400 json_too_deep and "
                                                    "json_number_too_long), the requests allowed per window (429 "
                                                    "rate_limited) or the open streams allowed (429 "
                                                    "too_many_streams_for_client); docs/security.md"})
    limit_class = fields.String(metadata={"description": "429 only: whose limit it was: address, tenant or player"})
    window_seconds = fields.Integer(metadata={"description": "429 rate_limited only: the limit's window"})
    retry_after = fields.Integer(metadata={"description": "429 only: seconds to wait, as in Retry-After"})
    key = fields.String(metadata={"description": "400 json_duplicate_key only: the repeated key (first 80 "
                                                  "characters)"})


def problem_responses(blp: Blueprint, schema: type[Schema]) -> Callable[..., Callable[[Any], Any]]:
    """A decorator factory documenting the problem responses an endpoint may return: ``@errors(400, 409)``.

    Documentation only: flask-smorest's ``alt_response`` records the responses on a wrapper that it also puts
    in the call path (one more frame and ``ensure_sync`` lookup per code on every request), so the records are
    built on a throwaway wrapper and moved onto the view itself, which keeps the OpenAPI output unchanged.
    """

    def errors(*codes: int) -> Callable[[Any], Any]:
        def wrap(func: Any) -> Any:
            documented = func
            for code in codes:
                documented = blp.alt_response(code, schema=schema, description="problem details",
                                              content_type="application/problem+json")(documented)
            if documented is not func:
                func._apidoc = documented._apidoc
            return func
        return wrap

    return errors


def sse_event(*names: str) -> dict[str, Any]:
    """JSON Schema of one server-sent event as an EventSource hands it over (what schemathesis checks a
    ``text/event-stream`` response against): its ``event`` name is one of ``names``, ``data`` is JSON text."""
    return {
        "type": "object",
        "properties": {"event": {"type": "string", "enum": list(names)},
                       "data": {"type": "string", "description": "JSON"},
                       "id": {"type": "string", "description": "the version (version events)"}},
        "required": ["event", "data"],
    }
