"""Schema bases: a body with an unknown field is refused (a typo must not be silently ignored); a query string
may carry extras (proxies and caches add some), except a list's: there an ignored filter answers every item."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

import jsonschema_rs
from flask_smorest import Blueprint
from marshmallow import EXCLUDE, INCLUDE, RAISE, Schema, fields, missing

from torres_service.errors import ValidationFailed


class StrictSchema(Schema):
    class Meta:
        unknown = RAISE


class QuerySchema(Schema):
    class Meta:
        unknown = EXCLUDE


class ListQuerySchema(Schema):
    """A list's query: filters and paging. An unknown parameter is refused (400), since a misspelt filter
    (``?player=`` for ``?player_id=``) ignored would answer the whole list as if it were the filtered one."""

    class Meta:
        unknown = RAISE


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


class DocumentedBody:
    """A request body checked against its own OpenAPI schema, compiled by jsonschema-rs: the one validator of a
    body on a hot path (a game's actions), where marshmallow's generic load costs many times what the compiled
    schema does (``bench/edge_bench.py``; the figures in docs/performance.md, "Edge validation"). The schema is
    the one the document publishes (generated from the body's marshmallow schema, which then only declares), so
    what the document promises and what the service takes are the same by construction; a field error names the
    top-level field at fault, as marshmallow's do.

    OpenAPI 3.0's schema dialect is JSON Schema draft 4's (``integer`` is a number without a fraction: ``1.0``
    is refused, as marshmallow's strict integers refused it) plus ``nullable``, which is turned into draft 4's
    ``null`` type here."""

    def __init__(self, component: Mapping[str, Any]) -> None:
        self.validator = jsonschema_rs.Draft4Validator(_draft4(component))

    def load(self, body: Any) -> Any:
        """``body`` (the input guard's parsed JSON; ``missing`` without a body: an empty object) if it is valid,
        else 400 ``validation_failed`` with the errors by field."""
        if body is missing:
            body = {}
        try:
            if self.validator.is_valid(body):
                return body
            errors: dict[str, list[str]] = {}
            for error in self.validator.iter_errors(body):
                errors.setdefault(_field_of(error), []).append(error.message)
        except UnicodeEncodeError:  # a lone surrogate (a JSON escape such as \ud800), which no UTF-8 text holds
            errors = {_surrogate_field(body): ["strings must be valid Unicode text (no lone surrogates)"]}
        raise ValidationFailed("some fields are missing or invalid", errors=errors)


def _draft4(schema: Any) -> Any:
    """An OpenAPI 3.0 schema as draft 4 reads it: ``nullable: true`` becomes "or null"."""
    if isinstance(schema, list):
        return [_draft4(item) for item in schema]
    if not isinstance(schema, Mapping):
        return schema
    if "$ref" in schema:
        raise ValueError("a documented body is checked without references: inline its nested schemas")
    out = {key: _draft4(value) for key, value in schema.items() if key != "nullable"}
    if schema.get("nullable"):
        out = {"anyOf": [*out.pop("anyOf"), {"type": "null"}], **out} if "anyOf" in out \
            else {"anyOf": [out, {"type": "null"}]}
    return out


def _field_of(error: Any) -> str:
    """The top-level field an error is about: its path's first step, or the property a ``required`` or
    ``additionalProperties`` error at the top names; ``_schema`` for the body as a whole (marshmallow's key)."""
    if error.instance_path:
        return str(error.instance_path[0])
    kind = error.kind
    if isinstance(kind, jsonschema_rs.ValidationErrorKind.Required):
        return str(kind.property)
    if isinstance(kind, jsonschema_rs.ValidationErrorKind.AdditionalProperties) and kind.unexpected:
        return str(kind.unexpected[0])
    return "_schema"


def _surrogate_field(body: Any) -> str:
    if isinstance(body, dict):
        for key, value in body.items():
            try:
                json.dumps([key, value], ensure_ascii=False).encode()
            except UnicodeEncodeError:
                return str(key)
    return "_schema"
