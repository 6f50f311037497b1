"""Rate limits and stream caps for both services (issue 26, "Safe on the open internet"): how many requests one
client may send, and how many waits and streams it may hold open, each refusal a 429 problem with ``Retry-After``.

Without them a single client could send requests and open streams without bound: one script could take a
replica's CPU, or its whole share of open connections (``TORRES_MAX_STREAMS``), from every other player.

**Who is counted.** Three classes of identity, each with its own limit (:class:`Settings`, docs/security.md):

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
its request hook: measured on the game service, that hook cost about 120 us per request (it resolves per-endpoint
and per-blueprint limits and exemptions and parses the limit strings again on every request) and its in-memory
storage started a thread every 10 ms to expire keys -- together 1.78 ms of gunicorn CPU per accepted action in the
HTTP benchmark against 1.15 ms without, where the issue allows 5 %. :class:`RequestCounts` is the lean equivalent
for what these services need (three application-wide limits) and keeps flask-limiter's semantics where they matter:
the check runs first, before the input guard and before anything reads the body, so a refused request costs little
and changes nothing; if the storage fails, requests are counted in the process's memory until it answers again
(re-checked after 1, 2, 4 ... 32 s, flask-limiter's ``in_memory_fallback``), and any other error is logged and the
request served (``swallow_errors``): the limiter fails open, never a 5xx. ``X-RateLimit-*`` headers are sent on 429
only (on every response they would cost one more storage read per request).

**Stream caps** bound the waits and streams (long-poll ``/wait``, SSE ``/stream``, WebSocket ``/ws``) one
identity holds open at once: past a cap, 429 ``too_many_streams_for_client``, below the process's own cap
(``TORRES_MAX_STREAMS``, 503). They are counted per process, in :class:`StreamCaps`: what a cap protects is the
process's own connections, greenlets and memory, and a count in memory cannot leak -- a stream's slot is given back
when its response is closed (the client left, the stream ended, the worker drained it on shutdown), and a worker
that dies takes its counts with it, where a count in Redis would stay behind. The price: an identity may hold a cap
per worker and replica, and the load balancer decides where its connections land.
"""

from __future__ import annotations

import functools
import hashlib
import ipaddress
import logging
import math
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from flask import Flask, Request, Response, after_this_request, request
from limits import RateLimitItem, parse_many
from limits.storage import MemoryStorage, RedisStorage, Storage, storage_from_string
from limits.strategies import STRATEGIES, FixedWindowRateLimiter, RateLimiter
from prometheus_client import Counter
from werkzeug.middleware.proxy_fix import ProxyFix
from werkzeug.routing import Rule

from .errors import ServiceError
from .logs import configure_logging
from .metrics import PUSH_SUFFIXES
from .principals import TENANT_SCOPES, InvalidCredentials, InvalidPlayerToken, Registries
from .problems import FIRST_CHECKS, UNLIMITED_PATHS
from .redis_urls import limits_storage
from .settings import Setting, values

log = logging.getLogger(__name__)

#: The identity classes, in the order their limits are reported.
CLASSES = ("address", "tenant", "player")
#: Never limited: liveness and readiness probes and metric scrapes must get through whatever a client does.
EXEMPT_PATHS = UNLIMITED_PATHS
#: Seconds a client refused for holding too many streams is told to wait: a slot frees when one of its own
#: streams ends, which the server cannot foresee; long enough not to invite a reconnect loop.
STREAM_RETRY_AFTER = 5
#: Where the app keeps its :class:`Guard` (``app.extensions``), and a request its identities and stream slot.
EXTENSION = "torres_ratelimits"
_IDENTITY, _SLOT = "torres.ratelimits.identity", "torres.ratelimits.stream_slot"

#: Each setting's variable and meaning (docs/settings.md; docs/security.md, "Rate limits and stream caps"); the
#: defaults are the fields'.
VARIABLES = {
    "enabled": Setting("TORRES_RATELIMIT_ENABLED", "`0` turns rate limits and stream caps off"),
    "address": Setting("TORRES_RATELIMIT_ADDRESS", "requests per client address (flask-limiter's notation; "
                       "`off`: none); past it 429 `rate_limited` with `Retry-After`"),
    "tenant": Setting("TORRES_RATELIMIT_TENANT", "requests per tenant (all its API keys)"),
    "player": Setting("TORRES_RATELIMIT_PLAYER", "requests per seat, spectator or player token"),
    "exempt": Setting("TORRES_RATELIMIT_EXEMPT", "addresses and networks never limited (empty: none)"),
    "storage_uri": Setting("TORRES_RATELIMIT_STORAGE_URI", "where requests are counted (a Redis is shared by "
                           "workers and replicas; while it fails, counted in memory)",
                           shown="the service's Redis (game: `CELERY_BROKER_URL`, matchmaking: `REDIS_URL`), "
                           "else `memory://`"),
    "strategy": Setting("TORRES_RATELIMIT_STRATEGY", "flask-limiter's strategy"),
    "shared": Setting("TORRES_RATELIMIT_SHARED", "the classes counted in that storage; the others per process "
                      "(no Redis round trip, a budget per worker and replica); `tenant` keeps a player's request "
                      "off Redis"),
    "trusted_proxies": Setting("TORRES_TRUSTED_PROXIES", "proxies in front that append to `X-Forwarded-For` (an "
                               "ingress: `1`): the client's address is the last trusted one's entry; `0`: the "
                               "header is not believed"),
    "streams_per_address": Setting("TORRES_MAX_STREAMS_PER_ADDRESS", "open waits and streams per address in one "
                                   "process; past it 429 `too_many_streams_for_client`; `0`: no cap"),
    "streams_per_tenant": Setting("TORRES_MAX_STREAMS_PER_TENANT", "open waits and streams per tenant in one "
                                  "process"),
    "streams_per_player": Setting("TORRES_MAX_STREAMS_PER_PLAYER", "open waits and streams per token or player "
                                  "in one process"),
}
#: The environment variable of each setting, named in the errors.
SETTINGS = {name: s.var for name, s in VARIABLES.items()}

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


class TooManyStreams(ServiceError):
    """The identity already holds its cap of open waits and streams in this process."""

    status, code, title = 429, "too_many_streams_for_client", "Too many open streams for this client"

    def __init__(self, detail: str, **extras: Any) -> None:
        super().__init__(detail, retry_after=STREAM_RETRY_AFTER, **extras)
        self.headers = (("Retry-After", str(STREAM_RETRY_AFTER)),)


# -- settings ---------------------------------------------------------------------------------------------------

def _off(value: str) -> bool:
    return value.strip().lower() in ("", "0", "off", "false", "no", "none")


@dataclass(frozen=True)
class Settings:
    """What the limits are. The defaults are far above what a person playing does (a few requests a second, one
    or two streams) and bound what a script may: a player 30 requests a second, an address 60, a portal's
    server 600; a player 8 open streams per process, an address 256, a tenant 5 000 (of the process's 10 000).
    A limit is flask-limiter's notation (``"300 per 10 seconds"``, ``"20/second;600/minute"``); empty or
    ``off`` turns that class off, as a cap of 0 does."""

    enabled: bool = True
    address: str = "600 per 10 seconds"
    tenant: str = "6000 per 10 seconds"
    player: str = "300 per 10 seconds"
    exempt: tuple[str, ...] = ("127.0.0.0/8", "::1/128")
    storage_uri: str = "memory://"
    strategy: str = "fixed-window"
    trusted_proxies: int = 0
    streams_per_address: int = 256
    streams_per_tenant: int = 5000
    streams_per_player: int = 8
    shared: tuple[str, ...] = CLASSES
    networks: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...] = field(init=False, repr=False,
                                                                                compare=False)

    def __post_init__(self) -> None:
        for name in CLASSES:
            value = getattr(self, name)
            if not _off(value):
                try:
                    parse_many(value)
                except ValueError:
                    raise ValueError(f"{SETTINGS[name]}={value!r} is no rate limit (e.g. '300 per 10 seconds', "
                                     f"or 'off')") from None
        if not set(self.shared) <= set(CLASSES):
            raise ValueError(f"{SETTINGS['shared']}={','.join(self.shared)!r}: a comma-separated subset of "
                             f"{','.join(CLASSES)}")
        for name in ("trusted_proxies", "streams_per_address", "streams_per_tenant", "streams_per_player"):
            if getattr(self, name) < 0:
                raise ValueError(f"{SETTINGS[name]} must not be negative")
        try:
            networks = tuple(ipaddress.ip_network(item.strip(), strict=False) for item in self.exempt if item.strip())
        except ValueError as exc:
            raise ValueError(f"{SETTINGS['exempt']}: {exc}") from None
        object.__setattr__(self, "networks", networks)

    def limit(self, name: str) -> str | None:
        value: str = getattr(self, name)
        return None if _off(value) else value

    def cap(self, name: str) -> int:
        return int(getattr(self, f"streams_per_{name}"))

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, *, storage_uri: str = "memory://") -> Settings:
        """The settings from ``TORRES_*`` variables, read when the app is built; ``storage_uri`` is the service's
        default storage (its Redis in the scale-out configuration), which ``TORRES_RATELIMIT_STORAGE_URI``
        overrides."""
        read = values(cls, env, VARIABLES)
        return cls(**{**read, "storage_uri": read.get("storage_uri") or storage_uri})

def redis_storage_uri(url: str, *, cluster: bool = False) -> str:
    """flask-limiter's storage URI for a service's Redis URL (``redis+cluster://`` for a cluster); ``memory://``
    without one (the embedded default, one process)."""
    if not url:
        return "memory://"
    if cluster and url.startswith(("redis://", "rediss://")):
        return "redis+cluster://" + url.split("://", 1)[1]
    return limits_storage(url)


# -- who is calling -----------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Identity:
    """The request's identities, one per class; None where the request has none (or is not limited in it)."""

    exempt: bool
    address: str
    tenant: str | None
    player: str | None

    def of(self, name: str) -> str | None:
        return None if self.exempt else getattr(self, name)


#: How a service names the player of a request's bearer token (None: none, or not one it can verify).
PlayerOf = Callable[[str], str | None]


def token_digest(token: str) -> str | None:
    """The game service's player identity: the bearer token's SHA-256 digest (a seat or a spectator token).
    Safe unverified: only whoever holds the token can spend its budget."""
    return hashlib.sha256(token.encode()).hexdigest()[:32]


class VerifiedPlayers:
    """The matchmaker's player identity: the tenant and player id of a token the registry verifies, else None.

    Verifying a JWT costs tens of microseconds (and for a JWKS tenant a key look-up), so a verified token is
    remembered until it expires, for the registry it was verified against (a re-read registry verifies again).
    A token that does not verify is not remembered: its requests are counted by address."""

    def __init__(self, registries: Registries, size: int = 4096) -> None:
        self.registries = registries
        self.size = size
        self._known: dict[str, tuple[object, str, int]] = {}

    def __call__(self, token: str) -> str | None:
        registry = self.registries.current
        known = self._known.get(token)
        now = time.time()
        if known is not None and known[0] is registry and known[2] > now:
            return known[1]
        try:
            player = registry.verify_player(token)
        except InvalidPlayerToken:
            return None
        if len(self._known) >= self.size:
            self._known.clear()  # a crude bound; a player's next request verifies once more
        name = f"{player.tenant}/{player.player_id}"
        self._known[token] = (registry, name, player.expires_at)
        return name


#: What :func:`key_holder` says of a key that belongs to our own services.
SYSTEM = "<system>"


def key_holder(registries: Registries | None, api_key: str) -> str | None:
    """Who holds an API key: its tenant, :data:`SYSTEM` for our own services' keys -- internal principals, and a key
    with scopes no tenant may hold (the single-key default's, which the matcher presents too) -- or None for a key
    nobody holds (or without a registry)."""
    if registries is None:
        return None
    try:
        principal = registries.principal(api_key)
    except InvalidCredentials:
        return None
    if principal.internal or not principal.scopes <= TENANT_SCOPES:
        return SYSTEM
    return principal.tenant


def tenant_of(registries: Registries | None, api_key: str) -> str | None:
    """The tenant an API key counts for: None for a key nobody holds and for our own services' keys."""
    holder = key_holder(registries, api_key)
    return None if holder == SYSTEM else holder


@functools.lru_cache(maxsize=4096)
def _address_exempt(address: str, networks: tuple[Any, ...]) -> bool:
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(parsed in network for network in networks)


def _bearer(header: str | None) -> str | None:
    """The token of ``Bearer <token>``, else None (a malformed header is the input guard's 401, after this)."""
    if header is None:
        return None
    scheme, _, token = header.strip().partition(" ")
    token = token.strip()
    return token if scheme.lower() == "bearer" and token and " " not in token else None


# -- stream caps ----------------------------------------------------------------------------------------------------

class StreamSlot:
    """One open wait or stream's place in the counts; :meth:`release` is idempotent (a response's close and the
    request's teardown may both call it)."""

    __slots__ = ("_caps", "keys", "released")

    def __init__(self, caps: StreamCaps, keys: tuple[tuple[str, str], ...]) -> None:
        self._caps = caps
        self.keys = keys
        self.released = False

    def release(self) -> None:
        self._caps._release(self)


class StreamCaps:
    """This process's count of open waits and streams per identity, and the cap of each class."""

    def __init__(self, caps: Mapping[str, int]) -> None:
        self.caps = {name: cap for name, cap in caps.items() if cap > 0}
        self._open: dict[tuple[str, str], int] = {}
        self._lock = threading.Lock()

    def acquire(self, identities: Mapping[str, str | None]) -> StreamSlot:
        """A slot for a stream of these identities (class -> identity), or :class:`TooManyStreams` naming the
        first class whose cap it would pass; nothing is counted then."""
        keys = tuple((name, ident) for name, ident in identities.items()
                     if ident is not None and name in self.caps)
        with self._lock:
            for key in keys:
                if self._open.get(key, 0) >= self.caps[key[0]]:
                    cap = self.caps[key[0]]
                    raise TooManyStreams(f"this {key[0]} already holds {cap} open waits and streams on this server; "
                                         "close one first", limit=cap, limit_class=key[0])
            for key in keys:
                self._open[key] = self._open.get(key, 0) + 1
        return StreamSlot(self, keys)

    def _release(self, slot: StreamSlot) -> None:
        with self._lock:
            if slot.released:
                return
            slot.released = True
            for key in slot.keys:
                left = self._open.get(key, 0) - 1
                if left > 0:
                    self._open[key] = left
                else:
                    self._open.pop(key, None)

    def open_count(self, name: str, ident: str) -> int:
        return self._open.get((name, ident), 0)


# -- request rates --------------------------------------------------------------------------------------------------

class _MemoryStorage(MemoryStorage):
    """``limits``' in-memory storage without its expiry timer. ``MemoryStorage`` starts a thread (a greenlet under
    gevent) 10 ms after each increment to drop expired keys: under load a thread start every 10 ms and a walk over
    every key, which cost more than the counting itself. The counts are right without it (a read drops an expired
    key first); here the keys nobody asks for again are dropped by a sweep at most once a second, run by the
    increment that finds it due."""

    def __init__(self) -> None:
        super().__init__()
        self.timer.cancel()
        self._sweep_at = 0.0

    def _MemoryStorage__schedule_expiry(self) -> None:  # replaces MemoryStorage's private scheduler
        now = time.monotonic()
        if now >= self._sweep_at:
            self._sweep_at = now + 1.0
            self._MemoryStorage__expire_events()  # type: ignore[attr-defined]


def _storage(uri: str) -> Storage:
    """The storage of ``uri`` (``limits``' URIs, as flask-limiter's ``RATELIMIT_STORAGE_URI``). A Redis that hangs
    must not hang every request: its connections give up after 0.25 s, and the in-memory fallback takes over."""
    if uri.startswith("memory://"):
        return _MemoryStorage()
    options: dict[str, Any] = {"socket_connect_timeout": 0.25, "socket_timeout": 0.25} if "redis" in uri else {}
    return storage_from_string(uri, **options)  # type: ignore[return-value]


@dataclass(frozen=True)
class _Counted:
    """One limit of one class. Its storage key is ``limits``' own, ``item.key_for(prefix, identity, class)``, kept
    as the parts around the identity: joined per request, where ``key_for`` builds it from six values."""

    name: str
    item: RateLimitItem
    head: str
    tail: str
    expiry: int

    @classmethod
    def of(cls, item: RateLimitItem, prefix: str, name: str) -> _Counted:
        head = f"{item.namespace}/{prefix}/"
        return cls(name, item, head, item.key_for(name).removeprefix(item.namespace), item.get_expiry())

    def key(self, ident: str) -> str:
        return self.head + ident + self.tail


#: A limit a request went past, and the seconds until its window ends.
Breach = tuple[_Counted, int]
#: The most requests of one key a lease counts ahead, and the share of what is left of the limit it may take.
LEASE_MOST, LEASE_SHARE = 16, 16


@dataclass
class _Lease:
    """Requests of one limit's key counted in a storage ahead of time, which the process may admit without asking
    it until the key's window ends. ``refused`` once the window's count is past the limit: the key's requests are
    then refused in the process, without asking the storage, until the window ends."""

    left: int
    ends: float
    seen: int
    refused: bool = False


class _Leases:
    """The fixed window counted ahead, in leases of up to :attr:`MOST` requests of one key (see
    :class:`RequestCounts`), against one storage."""

    MOST, SHARE = LEASE_MOST, LEASE_SHARE
    #: Seconds between walks that drop the leases of ended windows.
    SWEEP_EVERY = 1.0

    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        # One round trip for all the leases a request needs on a single Redis (a cluster spreads a request's keys
        # over its shards: there each is its own call).
        self.pipelined = type(storage) is RedisStorage
        self.leases: dict[str, _Lease] = {}
        self._lock = threading.Lock()
        self._sweep_at = 0.0

    def spend(self, entries: list[tuple[_Counted, str]]) -> Breach | None:
        """Admit the request from each entry's lease, taking new leases (at once for all) where a key has none
        left; the first limit passed, in class order, or None. Every entry is counted, as without leases."""
        now = time.monotonic()
        found: list[_Lease | None] = []
        wanted: list[tuple[int, _Counted, str, _Lease | None]] = []
        with self._lock:
            for at, (counted, ident) in enumerate(entries):
                key = counted.key(ident)
                lease = self.leases.get(key)
                if lease is not None and lease.ends > now and (lease.refused or lease.left > 0):
                    lease.left -= not lease.refused
                    found.append(lease)
                else:
                    found.append(None)
                    wanted.append((at, counted, key, lease if lease is not None and lease.ends > now else None))
        if wanted:
            for (at, *_), lease in zip(wanted, self._take([w[1:] for w in wanted], now), strict=True):
                found[at] = lease
        for (counted, _), lease in zip(entries, found, strict=True):
            if lease is not None and lease.refused:
                return counted, max(1, math.ceil(lease.ends - now))
        return None

    def _take(self, wanted: list[tuple[_Counted, str, _Lease | None]], now: float) -> list[_Lease]:
        """New leases of ``wanted``'s keys, each with the request at hand already spent from it."""
        sizes = [max(1, min(self.MOST, (c.item.amount - (old.seen if old else 0)) // self.SHARE))
                 for c, _, old in wanted]
        taken = self._incr([(key, c.expiry, n) for (c, key, _), n in zip(wanted, sizes, strict=True)])
        leases = []
        with self._lock:
            for (counted, key, _), n, (count, ttl) in zip(wanted, sizes, taken, strict=True):
                granted = min(n, counted.item.amount - (count - n))  # the units of this lease within the limit
                ends = now + (ttl if ttl > 0 else counted.expiry)
                lease = _Lease(granted - 1, ends, count) if granted > 0 else _Lease(0, ends, count, refused=True)
                self.leases[key] = lease
                leases.append(lease)
            if now >= self._sweep_at:
                self._sweep_at = now + self.SWEEP_EVERY
                for key in [key for key, lease in self.leases.items() if lease.ends <= now]:
                    del self.leases[key]
        return leases

    def _incr(self, keys: list[tuple[str, int, int]]) -> list[tuple[int, float]]:
        """Each key's ``INCRBY n`` (in Redis ``limits``' own increment script: ``EXPIRE`` on a new key) and the
        seconds left of its window. On a single Redis all of them in one pipeline; a server that lost the script
        (restarted, ``SCRIPT FLUSH``) answers NOSCRIPT to each, and the keys are counted one by one, which loads
        it again."""
        storage = self.storage
        if self.pipelined:
            from redis.exceptions import NoScriptError  # only here: a Redis storage needs redis-py anyway

            redis_storage = cast(RedisStorage, storage)
            pipe = redis_storage.get_connection().pipeline(transaction=False)  # type: ignore[attr-defined]
            sha = redis_storage.lua_incr_expire.sha
            for key, expiry, n in keys:
                prefixed = redis_storage.prefixed_key(key)
                pipe.evalsha(sha, 1, prefixed, expiry, n)
                pipe.pttl(prefixed)
            try:
                replies = pipe.execute()
            except NoScriptError:
                pass
            else:
                return [(int(count), int(ttl) / 1000) for count, ttl in zip(replies[::2], replies[1::2], strict=True)]
        return [(storage.incr(key, expiry, amount=n), storage.get_expiry(key) - time.time())
                for key, expiry, n in keys]


class RequestCounts:
    """Counts each request against the limits of its classes: the classes in ``Settings.shared`` in the configured
    storage, the others in the process's memory; the shared ones in memory too while the storage fails
    (flask-limiter's ``in_memory_fallback``: the limits then hold per process), trying the storage again after 1,
    2, 4 ... 32 s.

    **Leases.** With the fixed window (the default), a request does not wait for the storage: the process counts
    requests in it ahead of time, a lease of up to :attr:`_Leases.MOST` of one key at a time (``INCRBY n``, one
    round trip for all the keys a request needs a lease of), and admits them from the lease while its window lasts.
    Every request admitted was counted in the storage before it was admitted, so no client gets past its limit
    however many workers and replicas it spreads over. What a lease costs is the other way: units a process took
    and the client did not spend there are counted all the same, so a client spread over several processes may be
    refused up to ``MOST - 1`` requests per process before its limit (in one process, none: it spends its own
    leases). A lease is a sixteenth of what is left of the limit at most (1 near the limit: counted one by one
    there, as without leases), and a key past its limit is refused in the process until its window ends, with no
    round trip at all. Measured: with a round trip to Redis per request, 0.26 ms of gunicorn CPU per accepted
    action in the HTTP benchmark (0.84 of the throughput without limits), and a count in ``limits``' memory storage
    cost 14 us per request where a lease costs 2 (docs/performance.md)."""

    BACKOFF_MAX = 32.0

    def __init__(self, settings: Settings, prefix: str) -> None:
        self.prefix = prefix
        self.limits = {name: tuple(_Counted.of(item, prefix, name) for item in parse_many(value)) for name in CLASSES
                       if (value := settings.limit(name)) is not None}
        strategy = STRATEGIES[settings.strategy]
        self.storage = _storage(settings.storage_uri)
        self.counted: RateLimiter = strategy(self.storage)
        # The process's own counts: the classes not shared, and all of them while the storage fails (None when the
        # storage is memory already).
        self.memory: RateLimiter | None = None if isinstance(self.storage, MemoryStorage) \
            else strategy(_MemoryStorage())
        self.shared = frozenset(settings.shared)
        # Each class's limits, and whether they are counted in the process's memory beside a shared storage: decided
        # here once rather than on every request.
        self._classes = tuple((name, limits, self.memory is not None and name not in self.shared)
                              for name, limits in self.limits.items())
        self.failing = False
        self._retry_at = 0.0
        self._backoff = 1.0
        # The fixed window is counted in leases, one book per storage; the other strategies one request at a time.
        self.leases: dict[RateLimiter, _Leases] = {
            limiter: _Leases(limiter.storage) for limiter in (self.counted, self.memory) if limiter is not None
        } if strategy is FixedWindowRateLimiter else {}

    def _limiter(self) -> RateLimiter:
        if not self.failing or self.memory is None:
            return self.counted
        if time.monotonic() >= self._retry_at:
            if self.storage.check():
                log.warning("rate limit storage answers again", extra={"prefix": self.prefix})
                self.failing, self._backoff = False, 1.0
                return self.counted
            self._retry_at = time.monotonic() + self._backoff
            self._backoff = min(self._backoff * 2, self.BACKOFF_MAX)
        return self.memory

    def hit(self, identity: Identity) -> Breach | None:
        """Count the request in each of its classes; the first limit it goes past, or None. Fails open."""
        limiter = self._limiter()
        try:
            return self._hit(limiter, identity)
        except Exception as exc:
            if limiter is self.counted and self.memory is not None:
                log.warning("rate limit storage unreachable; counting in this process's memory",
                            extra={"prefix": self.prefix, "error": f"{type(exc).__name__}: {exc}"})
                self.failing, self._retry_at, self._backoff = True, time.monotonic() + 1.0, 2.0
                return self.hit(identity)
            log.exception("rate limits not checked; the request is served", extra={"prefix": self.prefix})
            return None

    def _hit(self, limiter: RateLimiter, identity: Identity) -> Breach | None:
        shared: list[tuple[_Counted, str]] = []
        local: list[tuple[_Counted, str]] = []
        for name, limits, in_memory in self._classes:
            ident = identity.of(name)
            if ident is not None:
                entries = local if in_memory else shared
                for counted in limits:
                    entries.append((counted, ident))
        if local:
            assert self.memory is not None  # local entries only exist beside a shared storage
            breach = self._count(self.memory, local)
            if breach is not None:
                return breach
        return self._count(limiter, shared)

    def _count(self, limiter: RateLimiter, entries: list[tuple[_Counted, str]]) -> Breach | None:
        """Count ``entries`` on ``limiter``, up to the first limit passed (which is returned)."""
        leases = self.leases.get(limiter)
        if leases is not None:
            return leases.spend(entries)
        for counted, ident in entries:
            if not limiter.hit(counted.item, self.prefix, ident, counted.name):
                reset = limiter.get_window_stats(counted.item, self.prefix, ident, counted.name).reset_time
                return counted, max(1, math.ceil(reset - time.time()))
        return None


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
            exempt = environ.get("PATH_INFO") in EXEMPT_PATHS or _address_exempt(address, self.settings.networks)
            tenant = player = None
            if not exempt:
                key = environ.get("HTTP_X_API_KEY")
                tenant = key_holder(self.registries, key) if key else None
                # Our own services (the matcher creating games, at the rate players are matched, from a few
                # addresses) are trusted with everything their key allows already: not limited at all.
                exempt = tenant == SYSTEM
            if not exempt:
                token = _bearer(environ.get("HTTP_AUTHORIZATION"))
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
