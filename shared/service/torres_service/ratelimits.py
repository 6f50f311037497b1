"""Rate limits and stream caps for both services: how many requests one client may send, and how many waits and
streams it may hold open, each refusal a 429 problem with ``Retry-After``. This module is the guard that applies
them to every request (:func:`install`); the settings and who is counted are :mod:`.ratelimit_identity`, the
counting :mod:`.ratelimit_counts`.

Without them a single client could send requests and open streams without bound: one script could take a
replica's CPU, or its whole share of open connections (``TORRES_MAX_STREAMS``), from every other player.

**Who is counted.** Three classes of identity, each with its own limit (:class:`~.ratelimit_identity.Settings`,
docs/security.md):

* ``address``: the client's IP address (``request.remote_addr``). Behind proxies that is the last proxy's address,
  so ``TORRES_TRUSTED_PROXIES`` says how many of them append to ``X-Forwarded-For`` (werkzeug's ``ProxyFix``);
  without it nobody's ``X-Forwarded-For`` is believed, as a client could write any address there.
* ``tenant``: a portal, by the API key it presents (``X-API-Key``), looked up in the tenants registry
  (:mod:`torres_service.principals`): all keys of one tenant share its limit. A key nobody holds is counted by
  address only (its request is refused 401 anyway). A request with our own services' key -- an internal
  principal's, or the single-key default's, which the matcher presents too -- is not limited at all.
* ``player``: the game service counts a bearer token (a seat's or a spectator's) by its SHA-256 digest; the
  matchmaker counts the player a portal-signed token names, after the registry verified the signature. Never an
  unverified claim: a forged token naming a victim would otherwise spend the victim's budget. A digest is safe
  without verification (only a holder of the token can spend its budget); a matchmaking token that does not
  verify is counted by address only.

A request is counted against every class it has (a player's action from a browser: address and player).
Addresses in ``TORRES_RATELIMIT_EXEMPT`` (default: loopback) are not limited at all, nor are ``/healthz``,
``/readyz`` and ``/metrics`` (probes and scrapes must never be refused).

**Request rates** are counted by flask-limiter's counting layer, the ``limits`` library (its storages, their Redis
scripts, its strategies), in the service's Redis in the scale-out configuration (so the count is shared by every
worker and replica) and in memory (per process) on the embedded default, with the fixed-window strategy (one counter
per identity and window: the cheapest, at the price of a burst of up to twice the limit across a window's edge).
Past a limit: 429 ``rate_limited`` with ``Retry-After`` (when the window ends). Not flask-limiter's ``Limiter`` and
its request hook: that hook resolves per-endpoint and per-blueprint limits and exemptions and parses the limit
strings again on every request, and its in-memory storage starts a thread after every increment to expire keys,
which together cost the game service far more than the few per cent the limits may (the figures:
docs/performance.md, "Rate limits"). :class:`~.ratelimit_counts.RequestCounts` is the lean equivalent for what
these services need (three application-wide limits) and keeps flask-limiter's semantics where they matter: the
check runs first, before the input guard and before anything reads the body, so a refused request costs little
and changes nothing; if the storage fails, requests are counted in the process's memory until
it answers again (re-checked after 1, 2, 4 ... 32 s, flask-limiter's ``in_memory_fallback``), and any other error is
logged and the request served (``swallow_errors``): the limiter fails open, never a 5xx. ``X-RateLimit-*`` headers
are sent on 429 only (on every response they would cost one more storage read per request).

**Stream caps** bound the waits and streams (long-poll ``/wait``, SSE ``/stream``, WebSocket ``/ws``) one identity
holds open at once: past a cap, 429 ``too_many_streams_for_client``, below the process's own cap
(``TORRES_MAX_STREAMS``, 503). They are counted per process, in :class:`~.ratelimit_counts.StreamCaps`: what a cap
protects is the process's own connections, greenlets and memory, and a count in memory cannot leak -- a stream's
slot is given back when its response is closed (the client left, the stream ended, the worker drained it on
shutdown), and a worker that dies takes its counts with it, where a count in Redis would stay behind. The price: an
identity may hold a cap per worker and replica, and the load balancer decides where its connections land."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from typing import Any

from flask import Flask, Request, Response, after_this_request, request
from prometheus_client import Counter
from werkzeug.middleware.proxy_fix import ProxyFix
from werkzeug.routing import Rule

from .errors import ServiceError
from .logs import configure_logging
from .metrics import PUSH_SUFFIXES
from .principals import Registries
from .problems import FIRST_CHECKS, UNLIMITED_PATHS
from .ratelimit_counts import RequestCounts, StreamCaps, StreamSlot, TooManyStreams
from .ratelimit_identity import (
    CLASSES,
    SYSTEM,
    Identity,
    PlayerOf,
    Settings,
    address_exempt,
    bearer,
    key_holder,
    token_digest,
)

log = logging.getLogger(__name__)

#: Never limited: liveness and readiness probes and metric scrapes must get through whatever a client does.
EXEMPT_PATHS = UNLIMITED_PATHS
#: Where the app keeps its :class:`Guard` (``app.extensions``), and a request its identities and stream slot.
EXTENSION = "torres_ratelimits"
_IDENTITY, _SLOT = "torres.ratelimits.identity", "torres.ratelimits.stream_slot"

REFUSED = Counter("torres_http_rate_limited_total",
                  "Requests refused with 429: kind=requests (a rate limit) or streams (a cap on open streams), "
                  "by the class of the limit (address, tenant, player).", ["service", "kind", "limit_class"])


class RateLimited(ServiceError):
    """More requests than the class's limit allows in its window; ``Retry-After`` says when the window ends."""

    status, code, title = 429, "rate_limited", "Too many requests"

    def __init__(self, detail: str, *, retry_after: int, headers: Iterable[tuple[str, str]] = (),
                 **extras: Any) -> None:
        super().__init__(detail, retry_after=retry_after, **extras)
        self.headers = (("Retry-After", str(retry_after)), *headers)




# -- the guard ------------------------------------------------------------------------------------------------------

class Guard:
    """The rate limits and stream caps of one app: see the module's docstring, and :func:`install`."""

    def __init__(self, app: Flask, service: str, settings: Settings, *, registries: Registries | None,
                 player_of: PlayerOf) -> None:
        self.service = service
        self.settings = settings
        self.registries = registries
        self.player_of = player_of
        self.caps = StreamCaps({name: settings.cap(name) for name in CLASSES})
        self.counts = RequestCounts(settings, f"torres-{service}")
        # First of all: before the input guard's checks of the head (a flood of malformed requests is still a
        # flood), before routing errors (unknown paths count) and long before the body is read -- the first of the
        # input guard's first checks, which its one hook runs before anything else of a request, matched or not.
        first_checks = app.extensions.get(FIRST_CHECKS)
        if first_checks is None:
            raise RuntimeError("rate limits are checked by the input guard's hook: call problem_api first")
        first_checks.insert(0, self._check_rates)
        # A stream slot is only ever taken on a push route: the request that takes one hands it over to its
        # response (``after_this_request``, :meth:`_check_rates`), and the backstop that gives it back when no
        # response was made is a hook of those routes' blueprints only (Flask calls a blueprint's hooks for its
        # own requests): no hook of the stream caps runs for any other request. The routes are all registered by
        # now (``install`` is called last).
        for blueprint in stream_blueprints(app):
            app.teardown_request_funcs.setdefault(blueprint, []).append(self._close_stream)
        if settings.trusted_proxies:
            app.wsgi_app = ProxyFix(app.wsgi_app, x_for=settings.trusted_proxies)  # type: ignore[method-assign]

    # -- identities -------------------------------------------------------------------------------------------

    def identity(self, environ: dict[str, Any]) -> Identity:
        """The identities of the request of ``environ``, worked out once per request (kept in its WSGI environ,
        not in ``g``: an app context, and its ``g``, can outlive a request and be reused by the next one in the
        same thread)."""
        found: Identity | None = environ.get(_IDENTITY)
        if found is None:
            # Straight from the WSGI environ (as ``ProxyFix`` left it), not through ``request``: each proxy and
            # header look-up there costs as much as the check it serves, on every request.
            address = environ.get("REMOTE_ADDR") or "unknown"
            exempt = environ.get("PATH_INFO") in EXEMPT_PATHS or address_exempt(address, self.settings.networks)
            tenant = player = None
            if not exempt:
                key = environ.get("HTTP_X_API_KEY")
                tenant = key_holder(self.registries, key) if key else None
                # Our own services (the matcher creating games, at the rate players are matched, from a few
                # addresses) are trusted with everything their key allows already: not limited at all.
                exempt = tenant == SYSTEM
            if not exempt:
                token = bearer(environ.get("HTTP_AUTHORIZATION"))
                player = self.player_of(token) if token else None
            found = environ[_IDENTITY] = Identity(exempt, address, tenant, player)
        return found

    # -- rate limits ------------------------------------------------------------------------------------------

    def _check_rates(self, req: Request) -> None:
        """The request's rates, then, for a wait or a stream, its slot under the caps: one check for both (see
        :data:`torres_service.problems.FIRST_CHECKS`)."""
        environ = req.environ
        identity = self.identity(environ)
        if identity.exempt:
            return
        breach = self.counts.hit(identity)
        if breach is not None:
            counted, retry_after = breach
            item, limit_class = counted.item, counted.name
            REFUSED.labels(self.service, "requests", limit_class).inc()
            raise RateLimited(
                f"more than {item.amount} requests per {_seconds(counted.expiry)} for this {limit_class}; retry "
                f"after {retry_after} s", retry_after=retry_after, limit=item.amount,
                window_seconds=counted.expiry, limit_class=limit_class,
                headers=(("X-RateLimit-Limit", str(item.amount)), ("X-RateLimit-Remaining", "0"),
                         ("X-RateLimit-Reset", str(int(time.time()) + retry_after))))
        rule = req.url_rule
        if rule is not None and req.method == "GET" and is_push_route(rule):
            try:
                environ[_SLOT] = self.caps.acquire({name: identity.of(name) for name in CLASSES})
            except TooManyStreams as refused:
                REFUSED.labels(self.service, "streams", refused.extras["limit_class"]).inc()
                raise
            after_this_request(self._hand_over_stream)

    # -- stream caps ------------------------------------------------------------------------------------------

    def _hand_over_stream(self, response: Response) -> Response:
        """(Run for the requests that took a slot.) A streamed body outlives the request: its slot is given back
        when the server closes the response (the stream ended, the client left, the worker drained it). Anything
        else has been answered by now."""
        slot: StreamSlot | None = _environ().pop(_SLOT, None)
        if slot is not None:
            if response.is_streamed:
                response.call_on_close(slot.release)
            else:
                slot.release()
        return response

    def _close_stream(self, _error: BaseException | None) -> None:
        """No response was made (or a function registered for the request before ours failed): give the slot back
        now."""
        slot: StreamSlot | None = _environ().pop(_SLOT, None)
        if slot is not None:
            slot.release()


def is_push_route(rule: Rule) -> bool:
    """A wait or a stream (a route counted under the stream caps): a GET route of a :data:`PUSH_SUFFIXES` path."""
    return rule.rule.endswith(PUSH_SUFFIXES) and "GET" in (rule.methods or ())


def stream_blueprints(app: Flask) -> set[str | None]:
    """The blueprints (their full dotted names, as Flask keys their hooks; None: the app's own routes) of the
    app's push routes."""
    return {endpoint.rpartition(".")[0] or None for rule in app.url_map.iter_rules()
            if is_push_route(rule) and (endpoint := rule.endpoint)}


def _environ() -> dict[str, Any]:
    """The current request's WSGI environ, taken out of the ``request`` proxy without an attribute look-up on the
    proxy (``request.environ`` is found through an AttributeError the proxy raises and formats first)."""
    return request._get_current_object().environ  # type: ignore[attr-defined,no-any-return]


def _seconds(seconds: int) -> str:
    return "second" if seconds == 1 else f"{seconds} seconds"


def install(app: Flask, service: str, *, registries: Registries | None = None, player_of: PlayerOf = token_digest,
            storage_uri: str = "memory://", settings: Settings | None = None, json_logs: bool = True) -> Guard | None:
    """Rate limits and stream caps on ``app`` (call it last, once the routes are registered), or nothing when
    ``TORRES_RATELIMIT_ENABLED`` is off. ``registries`` names the tenants of API keys (None: no tenant limit);
    ``player_of`` names the player of a bearer token; ``storage_uri`` is the default storage (the service's
    Redis, or ``memory://``)."""
    settings = settings or Settings.from_env(storage_uri=storage_uri)
    if not settings.enabled:
        return None
    configure_logging(__name__, "WARNING", json_logs)  # storage warnings, as the service's JSON lines
    guard = Guard(app, service, settings, registries=registries, player_of=player_of)
    app.extensions[EXTENSION] = guard
    return guard
