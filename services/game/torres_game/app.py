"""The application factory: wires config → store → service → AI driver → HTTP."""

from __future__ import annotations

import logging
import sqlite3

import psycopg
from flask import Flask, Response

import torres_rules as tr
from torres_service.cors import allow_cross_origin
from torres_service.fields import GAME_ID
from torres_service.json_provider import OrjsonProvider
from torres_service.limits import InputLimits
from torres_service.logs import ROUTINE_PATHS, configure_logging, request_logging
from torres_service.metrics import blp as metrics_blp
from torres_service.metrics import instrument
from torres_service.problems import Unavailable, document_unavailable, problem_api, service_problem
from torres_service.ratelimit_identity import redis_storage_uri
from torres_service.ratelimits import install as install_rate_limits
from torres_service.schemas import DocumentedBody

from .ai_turns import make_driver
from .config import Config
from .errors import StoreUnavailable
from .http import schemas
from .http.audit import audit as audit_blp
from .http.audit import well_known as well_known_blp
from .http.games import ACTION_BODY
from .http.games import blp as games_blp
from .http.online import blp as online_blp
from .http.ops import notifications as notifications_blp
from .http.ops import ops as ops_blp
from .http.ops import webhooks as webhooks_blp
from .http.play import play as play_blp
from .http.push import init_push
from .http.push import push as push_blp
from .service import AiDriver, GameService
from .store import EventStore, open_store

log = logging.getLogger("torres_game.http")


def create_app(
    config: Config | None = None, *, store: EventStore | None = None, driver: AiDriver | None = None
) -> Flask:
    config = config or Config.from_env()
    configure_logging("torres_game", config.log_level, config.json_logs)
    # torres_rules says which build it loaded when first imported, before any logging is set up: said again here
    log.info("rules engine loaded", extra={"engine_build": tr.ENGINE_BUILD})
    if not config.api_key or not config.admin_key:
        config = config.with_generated_keys()
    store = store or open_store(config.database_url, migrations_dir=config.migrations_dir,
                                pool_min=config.pool_min, pool_max=config.pool_max,
                                pool_timeout=config.pool_timeout, connect=config.db_connect_options())
    if config.auto_migrate:
        applied = store.migrate()
        if applied:
            log.info("migrations applied", extra={"migrations": applied, "backend": store.backend})
    service = GameService(store, config, driver or make_driver(config.ai_driver, config.ai_delay))

    app = Flask("torres_game")
    app.json = OrjsonProvider(app)
    app.json.sort_keys = False  # type: ignore[attr-defined]  # insertion order: cheaper, reads as documented
    app.extensions["torres_game"] = service
    api = problem_api(app, title="Torres game service", description="Event-sourced Torres games.",
                      limits=InputLimits.from_env(max_body_bytes=64 * 1024), problem_schema=schemas.ProblemSchema,
                      path_ids={"game_id": GAME_ID},
                      store_input_errors=(psycopg.DataError, sqlite3.DataError),
                      plugins=(Unavailable(STORE_UNAVAILABLE_RESPONSE, ("/v1/",)),))
    document_unavailable(api, STORE_UNAVAILABLE_RESPONSE, (
        "problem details, `store_unavailable`: the database could not serve the request (a failover, a restart). "
        "Nothing the caller did: retry after `Retry-After` seconds, an action with the same `command_id` (it is "
        "applied exactly once, whether or not the refused attempt was)"))
    app.register_error_handler(psycopg.OperationalError, _store_unavailable)
    app.register_error_handler(psycopg.errors.ReadOnlySqlTransaction, _store_unavailable)
    api.spec.components.security_scheme("seatToken", {"type": "http", "scheme": "bearer"})
    api.spec.components.security_scheme("apiKey", {"type": "apiKey", "in": "header", "name": "X-API-Key"})
    api.spec.components.security_scheme("adminKey", {"type": "apiKey", "in": "header", "name": "X-Admin-Key"})
    api.spec.components.security_scheme("streamTicket", {
        "type": "apiKey", "in": "query", "name": "stream_ticket",
        "description": "a single-use ticket from POST /v1/games/{game_id}/stream-tickets (/stream and /ws only)"})
    # The two seat shapes that CreateGame's seats refer to by oneOf (schemas.SEAT_SPEC_DOC).
    api.spec.components.schema("HumanSeatSpec", schema=schemas.HumanSeatSpecSchema)
    api.spec.components.schema("AiSeatSpec", schema=schemas.AiSeatSpecSchema)
    # An action's body: declared by its schema, documented as a component, and checked against that document.
    api.spec.components.schema(schemas.ACTION_REQUEST, schema=schemas.ActionRequestSchema)
    app.extensions[ACTION_BODY] = DocumentedBody(api.spec.components.schemas[schemas.ACTION_REQUEST])
    for blueprint in (ops_blp, games_blp, online_blp, notifications_blp, webhooks_blp, push_blp, metrics_blp,
                      audit_blp, well_known_blp):
        api.register_blueprint(blueprint)
    init_push(app, ping_interval=config.stream_heartbeat)
    app.register_blueprint(play_blp)  # static files: outside the OpenAPI document
    allow_cross_origin(app)
    request_logging(app, log, ROUTINE_PATHS | {"/v1/notifications"})  # the matchmaker and portals poll it
    instrument(app, "game")
    # Last, so that its checks run first (docs/security.md, "Rate limits and stream caps"): the counts are kept in
    # the service's Redis (the AI broker's) when there is one, else in the process.
    install_rate_limits(app, "game", registries=service.access.registries,
                        storage_uri=redis_storage_uri(config.broker_url),
                        json_logs=config.json_logs)
    service.start()
    return app


STORE_UNAVAILABLE_RESPONSE = "STORE_UNAVAILABLE"


def _store_unavailable(error: Exception) -> Response:
    """A request the database could not serve (a failover broke or hung its connection, no connection came within
    ``DB_POOL_TIMEOUT``, or it reached a primary that was demoted): 503 with ``Retry-After``, never a 500."""
    # The class and SQLSTATE only: a server's message may quote the statement's values.
    log.warning("database unavailable", extra={"error": type(error).__name__,
                                               "sqlstate": getattr(error, "sqlstate", None)})
    return service_problem(StoreUnavailable())
