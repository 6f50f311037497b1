"""RFC 9457 problem details: the single place where errors become HTTP responses, and the OpenAPI front that
documents them truthfully (every problem as ``application/problem+json`` with the problem schema, query and
body errors as the 400 they are, no catch-all ``default`` response that would make any status "documented")."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Mapping
from http import HTTPStatus
from typing import Any, ClassVar

from apispec import BasePlugin
from flask import Flask, Request, Response, current_app, json, request
from flask_smorest import Api, Blueprint
from flask_smorest.utils import prepare_response
from marshmallow import Schema
from webargs.flaskparser import FlaskParser
from werkzeug.exceptions import HTTPException
from werkzeug.routing import Rule

from torres_service.errors import InvalidInput, MalformedId, ServiceError, ValidationFailed
from torres_service.fields import Kind
from torres_service.limits import InputLimits, check_head, request_json
from torres_service.schemas import ProblemSchema

log = logging.getLogger(__name__)

PROBLEM_TYPE = "urn:torres:problem:"
PROBLEM_JSON = "application/problem+json"
_HTTP_CODES = {400: "bad_request", 401: "unauthenticated", 403: "forbidden", 404: "not_found",
               405: "method_not_allowed", 413: "payload_too_large", 414: "uri_too_long", 415: "unsupported_media_type",
               431: "headers_too_large", 500: "internal_error"}
#: Where the app keeps its :class:`InputLimits` (``app.extensions``).
LIMITS = "torres_input_limits"
#: Where the app keeps the checks its input guard runs first of all, each with the request, before the head is
#: judged: the rate limits' (:mod:`torres_service.ratelimits`), so that a flood of malformed requests is counted.
FIRST_CHECKS = "torres_service.first_checks"
# Headers an HTTP error carries that the problem response must keep (405's ``Allow``, RFC 9110 15.5.6).
_KEPT_HEADERS = ("Allow", "Retry-After", "WWW-Authenticate")


def problem(status: int, code: str, title: str, detail: str, headers: Mapping[str, str] | None = None,
            **extras: Any) -> Response:
    body = {"type": PROBLEM_TYPE + code, "title": title, "status": status, "detail": detail, "code": code,
            **extras}
    return Response(json.dumps(body), status=status, mimetype=PROBLEM_JSON, headers=headers)


def service_problem(error: ServiceError) -> Response:
    return problem(error.status, error.code, error.title, error.detail, headers=dict(error.headers) or None,
                   **error.extras)


def unexpected_problem(error: Exception) -> Response:
    """A bug, not a caller's fault: log it whole, answer without internals."""
    log.error("unhandled error", exc_info=error)
    return problem(500, "internal_error", "Internal error", "unexpected error; see the service log")


def refused_by_store(error: Exception) -> Response:
    """The backstop behind edge validation: a value the database or its driver cannot hold (a NUL byte in a
    PostgreSQL text, a lone surrogate) is the caller's input, never a 500. Logged, because it means a field
    reached the store without the edge checks of :mod:`torres_service.fields`."""
    log.warning("input refused by the store", exc_info=error)
    return service_problem(InvalidInput(f"the store refused a value of the request ({type(error).__name__})"))


def _flatten_messages(messages: Any) -> Any:
    """webargs nests field errors under the location ('json', 'query'); clients want the fields."""
    if isinstance(messages, dict) and len(messages) == 1:
        ((location, inner),) = messages.items()
        if location in ("json", "query", "headers", "form", "view_args") and isinstance(inner, dict):
            return inner
        if location == "json" and isinstance(inner, list):
            return {"_body": inner}
    return messages


class ProblemParser(FlaskParser):
    """Argument errors are answered 400 (see :meth:`ProblemApi.handle_http_exception`), so they are documented
    as 400 (webargs' default is 422). A JSON body is the input guard's (:func:`torres_service.limits.request_json`),
    parsed once under the app's limits: webargs' own ``json.loads`` knows none."""

    DEFAULT_VALIDATION_STATUS = 400
    #: A query's schema decides what an unknown parameter gets (:mod:`torres_service.schemas`: ignored, or on a
    #: list refused); webargs would otherwise drop unknown query parameters before any schema saw them.
    DEFAULT_UNKNOWN_BY_LOCATION: ClassVar[dict[str, str | None]] = {
        **FlaskParser.DEFAULT_UNKNOWN_BY_LOCATION, "query": None, "querystring": None}

    def load_json(self, req: Any, schema: Schema) -> Any:
        return request_json(req, current_app.extensions[LIMITS])


class ProblemBlueprint(Blueprint):
    """flask-smorest's Blueprint whose ``arguments`` document their errors as the 400 they are answered."""

    ARGUMENTS_PARSER = ProblemParser()


class PathIdentifiers(BasePlugin):
    """Documents each identifier path parameter with its kind's pattern and lengths, and the 400
    ``malformed_id`` that every operation with one can answer."""

    def __init__(self, kinds: Mapping[str, Kind]) -> None:
        self.kinds = dict(kinds)

    def path_helper(self, path: str | None = None, operations: dict[str, Any] | None = None,
                    parameters: list[dict[str, Any]] | None = None, **kwargs: Any) -> None:
        for param in parameters or ():
            if isinstance(param, dict) and param.get("in") == "path" and param.get("name") in self.kinds:
                kind = self.kinds[param["name"]]
                param["schema"] = kind.openapi()
                param.setdefault("description", kind.message)
        return None

    def operation_helper(self, path: str | None = None, operations: dict[str, Any] | None = None,
                         **kwargs: Any) -> None:
        if not any(name in self.kinds for name in re.findall(r"{(\w+)}", path or "")):
            return
        for operation in (operations or {}).values():
            _document(operation, 400)


def _document(operation: dict[str, Any], *statuses: int) -> None:
    """Add each of ``statuses`` to ``operation``'s responses (by its HTTP name, a shared response) unless the
    operation documents it already, by number or by string."""
    responses = operation.setdefault("responses", {})
    for status in statuses:
        if status not in responses and str(status) not in responses:
            responses[str(status)] = HTTPStatus(status).name


class BodyLimits(BasePlugin):
    """Documents what the input guard answers to any operation that takes a body: 400 (the JSON limits), 413
    (too long) and 415 (not JSON)."""

    def operation_helper(self, path: str | None = None, operations: dict[str, Any] | None = None,
                         **kwargs: Any) -> None:
        for operation in (operations or {}).values():
            if "requestBody" in operation:
                _document(operation, 400, 413, 415)


#: Paths no rate limit or stream cap applies to (:mod:`torres_service.ratelimits`): probes and scrapes must get
#: through whatever clients do.
UNLIMITED_PATHS = frozenset({"/healthz", "/readyz", "/metrics"})


class OpenOperations(BasePlugin):
    """Every operation states its security requirements: the probes and the scrape (the paths above),
    which take no credential at all, say so with an empty list (OpenAPI: no security requirement applies);
    every other operation names its schemes in its own ``@blp.doc(security=...)``, with ``{}`` among them where
    anonymous callers are served too (tests/common/test_openapi_security.py holds both documents to it)."""

    def operation_helper(self, path: str | None = None, operations: dict[str, Any] | None = None,
                         **kwargs: Any) -> None:
        if path in UNLIMITED_PATHS:
            for operation in (operations or {}).values():
                operation.setdefault("security", [])


class RateLimits(BasePlugin):
    """Documents the 429 that every operation but the probes may answer: ``rate_limited`` past a rate limit, and
    ``too_many_streams_for_client`` on a wait or stream past a cap (:mod:`torres_service.ratelimits`)."""

    def operation_helper(self, path: str | None = None, operations: dict[str, Any] | None = None,
                         **kwargs: Any) -> None:
        if path in UNLIMITED_PATHS:
            return
        for operation in (operations or {}).values():
            _document(operation, 429)


class Unavailable(BasePlugin):
    """Documents the 503 the operations under ``prefixes`` answer while a store they need is unreachable (a
    database failover, say): the response component ``response`` says which and what a client does about it. An
    operation that documents a 503 of its own already (a cap on open streams) keeps that one."""

    def __init__(self, response: str, prefixes: tuple[str, ...]) -> None:
        self.response, self.prefixes = response, prefixes

    def operation_helper(self, path: str | None = None, operations: dict[str, Any] | None = None,
                         **kwargs: Any) -> None:
        if path is None or not path.startswith(self.prefixes):
            return
        for operation in (operations or {}).values():
            responses = operation.setdefault("responses", {})
            if 503 not in responses and "503" not in responses:
                responses["503"] = self.response


def document_unavailable(api: Api, name: str, description: str) -> None:
    """The response component ``name``: a 503 with problem details and ``Retry-After`` (seconds), for the
    :class:`Unavailable` plugin to put on operations."""
    response: dict[str, Any] = {"description": description, "schema": api.ERROR_SCHEMA}
    prepare_response(response, api.spec, PROBLEM_JSON)
    response["headers"] = {"Retry-After": {"description": "seconds to wait before retrying",
                                           "schema": {"type": "integer", "minimum": 0}}}
    api.spec.components.response(name, response)


class OperationIds(BasePlugin):
    """Every operation's ``operationId`` is its view's name in camelCase (``list_games`` → ``listGames``): the
    name the generated SDKs give the call, rather than one spelt from the path and method. Each view serves one
    method, so the names are unique as the views' are (tests/common/test_openapi_security.py holds them to it)."""

    def operation_helper(self, path: str | None = None, operations: dict[str, Any] | None = None,
                         rule: Rule | None = None, **kwargs: Any) -> None:
        if rule is None:
            return
        head, *rest = rule.endpoint.rpartition(".")[2].split("_")
        for operation in (operations or {}).values():
            operation["operationId"] = head + "".join(word.capitalize() for word in rest)


class ProblemApi(Api):
    """flask-smorest's Api, with every HTTP error rendered and documented as problem details."""

    ERROR_SCHEMA = ProblemSchema
    DEFAULT_ERROR_RESPONSE_NAME = None  # a "default" response would let any status pass as documented

    def _register_responses(self) -> None:
        """The shared responses (``BAD_REQUEST``...) as problem+json, which is what the services answer."""
        for status in (400, 401, 403, 404, 405, 409, 413, 415, 422, 429, 500, 503):
            phrase = HTTPStatus(status)
            response = {"description": phrase.phrase, "schema": self.ERROR_SCHEMA}
            prepare_response(response, self.spec, PROBLEM_JSON)
            self.spec.components.response(phrase.name, response, lazy=True)

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
        kept = {name: value for name, value in error.get_headers() if name in _KEPT_HEADERS}
        return problem(status, _HTTP_CODES.get(status, f"http_{status}"), error.name,
                       error.description or error.name, headers=kept)


def _openapi_extras(self: Any, field: Any, **_: Any) -> dict[str, Any]:
    """apispec attribute function: a field's ``metadata["openapi"]`` is merged into its JSON Schema as is, for
    what marshmallow cannot say (``oneOf`` with a ``discriminator``, an object's required keys)."""
    return dict(field.metadata.get("openapi", {}))


def _remembered(ensure_sync: Callable[[Callable[..., Any]], Callable[..., Any]]
                ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``ensure_sync`` answering each function from memory after the first time (bounded: the app's own hooks,
    views and handlers are a few dozen functions; anything past that is asked afresh)."""
    known: dict[Callable[..., Any], Callable[..., Any]] = {}

    def remembered(func: Callable[..., Any]) -> Callable[..., Any]:
        found = known.get(func)
        if found is None:
            found = ensure_sync(func)
            if len(known) < 1024:
                known[func] = found
        return found

    return remembered


def problem_api(app: Flask, *, title: str, description: str, limits: InputLimits,
                problem_schema: type[ProblemSchema] = ProblemSchema, path_ids: Mapping[str, Kind] | None = None,
                store_input_errors: tuple[type[Exception], ...] = (),
                plugins: tuple[BasePlugin, ...] = ()) -> ProblemApi:
    """The HTTP front every service shares: OpenAPI 3 at ``/openapi.json``, the input guard, and every error,
    its own or HTTP's, answered as problem details.

    ``limits`` are the input guard's (:mod:`torres_service.limits`): the request head is checked before
    anything else (414, 431, 401 for an ``Authorization`` that is not a bearer token), the body before the view
    (413, 415, the JSON limits). ``problem_schema`` is the service's problem schema (the kit's plus its own
    extras), documented for every shared error response. ``path_ids`` names the path parameters that are
    identifiers: each is checked whole before the view runs (400 ``malformed_id``) and documented with its
    pattern. ``store_input_errors`` are the store's exceptions for values it cannot hold, answered 400
    ``invalid_input`` (:func:`refused_by_store`). ``plugins``: the service's own apispec plugins
    (:class:`Unavailable`).
    """
    # An empty path segment ("/v1/tickets//stream") is no resource: without this, werkzeug merges the slashes and
    # answers 308 to another route ("/v1/tickets/stream", as if "stream" were an id). Rules bind the map's value
    # when they are added, so this comes before any blueprint.
    app.url_map.merge_slashes = False
    app.config.update(
        API_TITLE=title,
        API_VERSION="v1",
        OPENAPI_VERSION="3.0.3",
        OPENAPI_URL_PREFIX="/",
        OPENAPI_JSON_PATH="openapi.json",
        MAX_CONTENT_LENGTH=limits.max_body_bytes,  # werkzeug's own stop for a chunked body
    )
    app.extensions[LIMITS] = limits
    kinds = dict(path_ids or {})
    api_class = type("ServiceApi", (ProblemApi,), {"ERROR_SCHEMA": problem_schema})
    api = api_class(app, spec_kwargs={"info": {"description": description},
                                       "extra_plugins": [PathIdentifiers(kinds), BodyLimits(), RateLimits(),
                                                         OpenOperations(), OperationIds(), *plugins]})
    api.ma_plugin.converter.add_attribute_function(_openapi_extras)
    app.register_error_handler(ServiceError, service_problem)
    for error in (UnicodeEncodeError, *store_input_errors):
        app.register_error_handler(error, refused_by_store)

    # The guard is the first hook Flask runs for every request, matched or not (a routing error is raised later, at
    # dispatch): the first checks (the rate limits), then the head is judged before anything reads it, then the
    # path's identifiers, then the body. One hook, not several: Flask's dispatch of each hook costs as much as most
    # checks in it. It is the first of the app's before-request functions rather than a URL value preprocessor
    # (which Flask runs just before them, none here): Flask calls a preprocessor with ``request.endpoint`` and
    # ``request.view_args``, two look-ups on the ``request`` proxy, each found through an AttributeError the proxy
    # raises and formats first; a before-request function it calls with nothing. The request is taken out of its
    # proxy once.
    first_checks: list[Callable[[Request], None]] = app.extensions.setdefault(FIRST_CHECKS, [])

    def _guard() -> None:
        req: Request = request._get_current_object()  # type: ignore[attr-defined]
        for check in first_checks:
            check(req)
        check_head(req.environ, limits)
        values = req.view_args
        if values:
            for name, value in values.items():
                kind = kinds.get(name)
                if kind is not None and not kind.accepts(value):
                    raise MalformedId(kind.message, **{name: value[:80]})
        # Every body is read and parsed here, before any view and whether or not the view takes one; an unknown
        # route or method is answered as such (404, 405) instead.
        if req.routing_exception is None:
            request_json(req, limits)

    app.before_request_funcs.setdefault(None, []).insert(0, _guard)

    # Flask asks ``ensure_sync`` about every hook, view and error handler on every request, and the answer
    # (``inspect.iscoroutinefunction``) costs about a microsecond each time, ten times a request; for one
    # function it never changes.
    app.ensure_sync = _remembered(app.ensure_sync)  # type: ignore[method-assign]
    return api
