"""RFC 9457 problem details: the single place where errors become HTTP responses."""

from __future__ import annotations

import logging
from typing import Any

from flask import Flask, Response, json
from flask_smorest import Api
from werkzeug.exceptions import HTTPException

from torres_service.errors import ServiceError, ValidationFailed

log = logging.getLogger(__name__)

PROBLEM_TYPE = "urn:torres:problem:"
_HTTP_CODES = {400: "bad_request", 401: "unauthenticated", 403: "forbidden", 404: "not_found",
               405: "method_not_allowed", 413: "payload_too_large", 415: "unsupported_media_type",
               500: "internal_error"}


def problem(status: int, code: str, title: str, detail: str, **extras: Any) -> Response:
    body = {"type": PROBLEM_TYPE + code, "title": title, "status": status, "detail": detail, "code": code,
            **extras}
    return Response(json.dumps(body), status=status, mimetype="application/problem+json")


def service_problem(error: ServiceError) -> Response:
    return problem(error.status, error.code, error.title, error.detail, **error.extras)


def unexpected_problem(error: Exception) -> Response:
    """A bug, not a caller's fault: log it whole, answer without internals."""
    log.error("unhandled error", exc_info=error)
    return problem(500, "internal_error", "Internal error", "unexpected error; see the service log")


def _flatten_messages(messages: Any) -> Any:
    """webargs nests field errors under the location ('json', 'query'); clients want the fields."""
    if isinstance(messages, dict) and len(messages) == 1:
        ((location, inner),) = messages.items()
        if location in ("json", "query", "headers", "form", "view_args") and isinstance(inner, dict):
            return inner
        if location == "json" and isinstance(inner, list):
            return {"_body": inner}
    return messages


class ProblemApi(Api):
    """flask-smorest's Api, with every HTTP error rendered as problem details."""

    def handle_http_exception(self, error: HTTPException) -> Response:  # type: ignore[override]
        data = getattr(error, "data", None) or {}
        if "messages" in data:  # marshmallow / webargs: malformed JSON or field errors
            errors = _flatten_messages(data["messages"])
            detail = "the body is not valid JSON" if errors == {"_body": ["Invalid JSON body."]} \
                else "some fields are missing or invalid"
            return service_problem(ValidationFailed(detail, errors=errors))
        status = error.code or 500
        if status >= 500:
            log.error("unhandled error", exc_info=getattr(error, "original_exception", None) or error)
        return problem(status, _HTTP_CODES.get(status, f"http_{status}"), error.name,
                       error.description or error.name)


def problem_api(app: Flask, *, title: str, description: str, max_content_length: int) -> ProblemApi:
    """The HTTP front every service shares: OpenAPI 3 at ``/openapi.json``, request bodies capped, and every
    error, its own or HTTP's, answered as problem details."""
    app.config.update(
        API_TITLE=title,
        API_VERSION="v1",
        OPENAPI_VERSION="3.0.3",
        OPENAPI_URL_PREFIX="/",
        OPENAPI_JSON_PATH="openapi.json",
        MAX_CONTENT_LENGTH=max_content_length,
    )
    api = ProblemApi(app, spec_kwargs={"info": {"description": description}})
    app.register_error_handler(ServiceError, service_problem)
    return api
