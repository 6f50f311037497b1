"""Rate limits, counting: the request rates of each identity in a ``limits`` storage (:class:`RequestCounts`, with
its leases) and the open streams of each identity in this process (:class:`StreamCaps`). Who is counted is
:mod:`.ratelimit_identity`; the guard that counts every request is :mod:`.ratelimits`."""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from limits import RateLimitItem, parse_many
from limits.storage import MemoryStorage, Storage, storage_from_string
from limits.strategies import STRATEGIES, FixedWindowRateLimiter, RateLimiter

from .errors import ServiceError
from .ratelimit_identity import CLASSES, Identity, Settings

log = logging.getLogger("torres_service.ratelimits")  # the one logger name of the rate limits

#: Seconds a client refused for holding too many streams is told to wait: a slot frees when one of its own
#: streams ends, which the server cannot foresee; long enough not to invite a reconnect loop.
STREAM_RETRY_AFTER = 5


class TooManyStreams(ServiceError):
    """The identity already holds its cap of open waits and streams in this process."""

    status, code, title = 429, "too_many_streams_for_client", "Too many open streams for this client"

    def __init__(self, detail: str, **extras: Any) -> None:
        super().__init__(detail, retry_after=STREAM_RETRY_AFTER, **extras)
        self.headers = (("Retry-After", str(STREAM_RETRY_AFTER)),)




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

def _storage(uri: str) -> Storage:
    """The storage of ``uri`` (``limits``' URIs, as flask-limiter's ``RATELIMIT_STORAGE_URI``). A Redis that hangs
    must not hang every request: its connections give up after 0.25 s, and the in-memory fallback takes over."""
    if uri.startswith("memory://"):
        return MemoryStorage()
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
        """Each key's ``INCRBY n`` and the seconds left of its window, through ``limits``' public storage API
        (``incr``: in Redis its own increment script, which sets the window's expiry on a new key, and which
        redis-py loads again where the server lost it). Two round trips per key, once per lease: a lease spares
        the storage up to :attr:`MOST` requests, so per request this is a fraction of one."""
        storage = self.storage
        return [(storage.incr(key, expiry, amount=n), storage.get_expiry(key) - time.time())
                for key, expiry, n in keys]


class RequestCounts:
    """Counts each request against the limits of its classes: the classes in ``Settings.shared`` in the configured
    storage, the others in the process's memory; the shared ones in memory too while the storage fails
    (flask-limiter's ``in_memory_fallback``: the limits then hold per process), trying the storage again after 1,
    2, 4 ... 32 s.

    **Leases.** With the fixed window (the default), a request does not wait for the storage: the process counts
    requests in it ahead of time, a lease of up to :attr:`_Leases.MOST` of one key at a time (``INCRBY n``), and
    admits them from the lease while its window lasts.
    Every request admitted was counted in the storage before it was admitted, so no client gets past its limit
    however many workers and replicas it spreads over. What a lease costs is the other way: units a process took
    and the client did not spend there are counted all the same, so a client spread over several processes may be
    refused up to ``MOST - 1`` requests per process before its limit (in one process, none: it spends its own
    leases). A lease is a sixteenth of what is left of the limit at most (1 near the limit: counted one by one
    there, as without leases), and a key past its limit is refused in the process until its window ends, with no
    round trip at all: the cost of counting, in Redis or in memory, is paid once per lease, not per request
    (figures in docs/performance.md)."""

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
            else strategy(MemoryStorage())
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


