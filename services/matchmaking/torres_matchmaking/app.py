"""The application factory and the wiring shared by the API server and the matcher command."""

from __future__ import annotations

import logging
import secrets
import threading
from dataclasses import dataclass, field
from typing import Any

import redis
from flask import Flask

from torres_service.cors import allow_cross_origin
from torres_service.fields import PLAYER_ID, TICKET_ID
from torres_service.limits import InputLimits
from torres_service.logs import configure_logging, request_logging
from torres_service.metrics import blp as metrics_blp
from torres_service.metrics import instrument
from torres_service.principals import PLAYER_TOKEN_SECRET, TENANTS_FILE, TENANTS_RELOAD, Registries
from torres_service.problems import (
    Unavailable,
    document_unavailable,
    problem_api,
    service_problem,
    unexpected_problem,
)
from torres_service.ratelimit_identity import VerifiedPlayers, redis_storage_uri
from torres_service.ratelimits import install as install_rate_limits

from .config import Config
from .consumer import RatingConsumer
from .errors import StoreUnavailable
from .game_client import GameCreator, GameServiceClient
from .http import schemas
from .http.auth import SECURITY_SCHEMES
from .http.dev import blp as dev_blp
from .http.ops import blp as ops_blp
from .http.tickets import blp as tickets_blp
from .matcher import Matcher
from .metrics import WaitingTickets
from .ratings import RatingBook
from .store import Redis
from .tickets import TicketService
from .webhooks import CallbackSender

log = logging.getLogger("torres_matchmaking.http")


@dataclass
class Services:
    """Everything one process needs, built from one Config (no module-level globals)."""

    config: Config
    store: Redis
    ratings: RatingBook
    tickets: TicketService
    games: GameServiceClient
    registries: Registries  # who is calling: tenants' keys and their players' tokens
    _stop: threading.Event = field(default_factory=threading.Event)
    _threads: list[threading.Thread] = field(default_factory=list)

    @classmethod
    def build(cls, config: Config) -> Services:
        store = Redis.open(config)
        ratings = RatingBook(store)
        games = GameServiceClient(config.game_service_url, config.game_service_api_key, config.game_service_timeout)
        return cls(config, store, ratings, TicketService(store, config, ratings), games, registries(config))

    def start_workers(self, games: GameCreator | None = None, *, matcher: bool = True,
                      ratings: bool = True) -> None:
        """Run the matcher loop and/or the ratings consumer in daemon threads of this process."""
        client = self.games
        if matcher:
            callbacks = CallbackSender(self.store, self.config) if self.config.webhook_secret else None
            m = Matcher(self.store, self.config, games or client, callbacks=callbacks)
            self._spawn("mm-matcher", m.run, self._stop)
        if ratings:
            consumer = RatingConsumer(self.store, client)
            self._spawn("mm-ratings", consumer.run, self._stop, self.config.ratings_poll_seconds)

    def _spawn(self, name: str, target: Any, *args: Any) -> None:
        thread = threading.Thread(target=target, args=args, name=name, daemon=True)
        thread.start()
        self._threads.append(thread)

    def stop(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=10)
        self.tickets.close()


def registries(config: Config) -> Registries:
    """The tenants file when there is one, else the single-key default: tenant ``default`` holds the service key
    and signs its players' tokens with ``TORRES_PLAYER_TOKEN_SECRET``. An unset key is replaced by a random one
    nobody knows, so that an empty ``X-API-Key`` can never match it."""
    env = {TENANTS_FILE.var: config.tenants_file, TENANTS_RELOAD.var: str(config.tenants_reload),
           PLAYER_TOKEN_SECRET.var: config.player_token_secret}
    return Registries.from_env({k: v for k, v in env.items() if v},
                               api_key=config.api_key or secrets.token_urlsafe(32))


def create_app(config: Config | None = None, *, services: Services | None = None) -> Flask:
    config = config or Config.from_env()
    configure_logging("torres_matchmaking", config.log_level, config.json_logs)
    services = services or Services.build(config)

    app = Flask("torres_matchmaking")
    app.extensions["torres_matchmaking"] = services
    api = problem_api(app, title="Torres matchmaking", description="Tickets, atomic pairing and ratings.",
                      limits=InputLimits.from_env(max_body_bytes=16 * 1024), problem_schema=schemas.ProblemSchema,
                      path_ids={"ticket_id": TICKET_ID, "player_id": PLAYER_ID},
                      plugins=(Unavailable(STORE_UNAVAILABLE_RESPONSE, ("/v1/",)),))
    document_unavailable(api, STORE_UNAVAILABLE_RESPONSE, (
        "problem details, `store_unavailable`: the matchmaker's Redis could not serve the request (a Sentinel "
        "failover). Retry after `Retry-After` seconds"))
    for name, scheme in SECURITY_SCHEMES.items():
        api.spec.components.security_scheme(name, scheme)
    for blueprint in (ops_blp, tickets_blp, metrics_blp, *([dev_blp] if config.dev_issuer else [])):
        api.register_blueprint(blueprint)
    if not config.webhook_secret:
        # The document says what this server accepts: without a webhook secret a callback_url is refused (400),
        # so it is not offered (schemathesis' positive_data_acceptance holds the document to that).
        api.spec.components.schemas["CreateTicket"]["properties"].pop("callback_url", None)
    app.register_error_handler(Exception, _unexpected)
    for error in (redis.ConnectionError, redis.TimeoutError, redis.ReadOnlyError):
        app.register_error_handler(error, _store_unavailable)
    request_logging(app, log)
    instrument(app, "matchmaking", collectors=[WaitingTickets(services.store)])
    allow_cross_origin(app)
    # Last, so that its checks run first (docs/security.md, "Rate limits and stream caps"): players are counted
    # once their token verifies, and the counts kept in the matchmaker's Redis (in memory when embedded).
    install_rate_limits(app, "matchmaking", registries=services.registries,
                        player_of=VerifiedPlayers(services.registries),
                        storage_uri=redis_storage_uri(config.redis_url, cluster=config.redis_cluster),
                        json_logs=config.json_logs)
    return app


STORE_UNAVAILABLE_RESPONSE = "STORE_UNAVAILABLE"


def _store_unavailable(error: Exception) -> Any:
    """A request the Redis store could not serve (its master lost, a connection broken by the failover, a write
    that reached a demoted master): 503 with ``Retry-After``, never a 500."""
    log.warning("store unavailable", extra={"error": type(error).__name__})
    return service_problem(StoreUnavailable())


def _unexpected(error: Exception) -> Any:
    from werkzeug.exceptions import HTTPException

    if isinstance(error, HTTPException):
        return error
    return unexpected_problem(error)
