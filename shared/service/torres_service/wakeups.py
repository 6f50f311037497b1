"""Event-driven wake-ups for waiting clients (long-poll, SSE, WebSocket), shared by the game service and matchmaking.

A :class:`WakeHub` keeps, per process, the subscriptions of the waiters of each key (a game id, a ticket id). A
waiter subscribes *before* it reads the state it waits on, then sleeps on its own event until a notice for its key
arrives, so an idle waiter costs the store nothing and holds no OS thread (under the gevent worker an event is a
greenlet wait).

Notices come from one *listener* per process and store (PostgreSQL ``LISTEN`` in the game service, Redis sharded
pub/sub in matchmaking) that fans each notice out to the local subscribers of its key. A listener that lost its
connection calls :meth:`WakeHub.recheck_all` once it listens again: every waiter then reads its state once more, so
a change made while nobody listened is found by that re-check and no wake-up is lost for good.

Hubs are shared per store within a process (:func:`hub_for`), so a process holds one listening connection per store
however many app instances it runs, and :func:`drain_all` (called on SIGTERM by ``infra/gunicorn.conf.py``) ends the
open waits of every service in the process.

A consumer that cares about every key rather than one (the game service's AI driver, which looks for AI turns any
process made due) registers with :meth:`WakeHub.watch`: it gets the same notices, without a subscription per key.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any, Protocol

from .errors import ServiceError

log = logging.getLogger(__name__)


class Listener(Protocol):
    def stop(self) -> None: ...


Newer = Callable[[Any, Any], bool]
Watcher = Callable[[str | None, Any], None]


def _always(old: Any, new: Any) -> bool:
    return True


class Subscription:
    """One waiter's mailbox: the newest notice for its key, or an order to re-read (``recheck``)."""

    __slots__ = ("_event", "_newer", "active", "closing", "key", "latest", "recheck")

    def __init__(self, key: str, newer: Newer = _always) -> None:
        self.key = key
        self.active = True
        self.latest: Any = None
        self.recheck = False
        self.closing = False
        self._newer = newer
        self._event = threading.Event()  # a gevent Event under the gevent worker (monkey-patched)

    def _offer(self, notice: Any) -> None:
        if notice is not None and (self.latest is None or self._newer(self.latest, notice)):
            self.latest = notice
        self._event.set()

    def _poke(self, *, closing: bool = False) -> None:
        self.recheck = True
        self.closing = self.closing or closing
        self._event.set()

    def wait(self, timeout: float) -> bool:
        """Sleep until something arrives (True) or ``timeout`` passes (False); consumes the wake-up. A wake-up
        that lands just after a timeout stays set for the next call (clearing it then would lose it until the
        one after); one that lands between the return and ``clear`` is not lost either, because the notice and
        the re-check flag are written before the event is set and read after this returns."""
        woke = self._event.wait(max(0.0, timeout))
        if woke:
            self._event.clear()
        return woke

    def take_recheck(self) -> bool:
        recheck, self.recheck = self.recheck, False
        return recheck


class StreamLimit(ServiceError):
    """The process holds its maximum of open waits and streams: 503, try again (or another replica)."""

    status, code, title = 503, "too_many_streams", "This server holds as many open waits and streams as it may"


class ShuttingDown(StreamLimit):
    code, title = "shutting_down", "This server is shutting down"


class WakeHub:
    """The subscriptions of one process for one store, and the count of open waits and streams.

    ``newer(old, new)`` decides whether a notice replaces the one a subscription holds (the game service keeps
    the highest version); by default the latest one wins."""

    def __init__(self, max_open: int = 10_000, newer: Newer = _always) -> None:
        self.max_open = max_open
        self.newer = newer
        self._subs: dict[str, set[Subscription]] = {}
        self._lock = threading.Lock()
        self._open = 0
        self.draining = False
        self.listener: Any = None  # the process's listener for this store (None: in-process publishing only)
        self._watchers: tuple[Watcher, ...] = ()  # replaced, never mutated: publishers read it without the lock

    # -- subscribers --------------------------------------------------------------------------

    def subscribe(self, key: str) -> Subscription:
        """Register a waiter (and count it against ``max_open``); pair with :meth:`unsubscribe`."""
        with self._lock:
            if self.draining:
                raise ShuttingDown("this server process is draining; connect again (to another replica)")
            if self._open >= self.max_open:
                raise StreamLimit(f"this server process already holds {self._open} open waits and streams")
            self._open += 1
            sub = Subscription(key, self.newer)
            self._subs.setdefault(key, set()).add(sub)
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        """Idempotent: a stream's close callback and its error path may both call it."""
        with self._lock:
            if not sub.active:
                return
            sub.active = False
            self._open -= 1
            subs = self._subs.get(sub.key)
            if subs is not None:
                subs.discard(sub)
                if not subs:
                    del self._subs[sub.key]

    @property
    def open_count(self) -> int:
        return self._open

    def keys(self) -> list[str]:
        """The keys that have waiters in this process now (what a listener's periodic re-read looks at)."""
        with self._lock:
            return list(self._subs)

    def watch(self, watcher: Watcher) -> None:
        """Also hand every notice, whatever its key, to ``watcher(key, notice)``, and ``watcher(None, None)``
        when the listener asks for a re-check (notices may have been missed). It runs in the publisher's thread
        (the listener's), so it must return at once; an error it raises is logged and does not stop the
        listener. Not counted against ``max_open``: one per consumer, not per client."""
        with self._lock:
            self._watchers = (*self._watchers, watcher)

    def unwatch(self, watcher: Watcher) -> None:
        """Idempotent."""
        with self._lock:
            self._watchers = tuple(w for w in self._watchers if w != watcher)

    def _tell_watchers(self, key: str | None, notice: Any) -> None:
        for watcher in self._watchers:
            try:
                watcher(key, notice)
            except Exception:  # a consumer's bug must not cost the other keys their wake-ups
                log.exception("a hub watcher failed", extra={"key": key})

    # -- publishers ---------------------------------------------------------------------------

    def publish(self, key: str, notice: Any = None) -> None:
        """Wake the subscribers of ``key`` in this process (with ``notice``, if the store sent one)."""
        with self._lock:
            subs = list(self._subs.get(key, ()))
        for sub in subs:
            sub._offer(notice)
        self._tell_watchers(key, notice)

    def announce(self, key: str, notice: Any) -> None:
        """Hand ``notice`` to the watchers only: news about ``key`` that no waiter reads (a game's seat tokens
        changed, say)."""
        self._tell_watchers(key, notice)

    def recheck_all(self, keep: Callable[[str], bool] | None = None) -> None:
        """Tell every subscriber (of the keys ``keep`` accepts) to re-read its state: notices may have been
        missed."""
        with self._lock:
            subs = [sub for key, group in self._subs.items() if keep is None or keep(key) for sub in group]
        for sub in subs:
            sub._poke()
        self._tell_watchers(None, None)

    def drain(self) -> None:
        """Shutdown: refuse new waiters and end the open ones now, so the worker exits within its grace."""
        with self._lock:
            self.draining = True
            subs = [sub for group in self._subs.values() for sub in group]
        for sub in subs:
            sub._poke(closing=True)

    def close(self) -> None:
        if self.listener is not None:
            self.listener.stop()


_HUBS: dict[str, tuple[WakeHub, int]] = {}  # store key -> (hub, number of services using it)
_HUBS_LOCK = threading.Lock()


def hub_for(key: str, *, max_open: int, newer: Newer = _always,
            listener: Callable[[WakeHub], Listener] | None = None) -> WakeHub:
    """The process's hub for the store ``key`` names; the first call starts its listener (``listener(hub)``
    builds and starts it), so a process holds one listening connection per store. Pair each call with
    :func:`release_hub`."""
    with _HUBS_LOCK:
        hub, users = _HUBS.get(key, (None, 0))
        if hub is None:
            hub = WakeHub(max_open, newer)
            if listener is not None:
                hub.listener = listener(hub)
        hub.max_open = max_open
        _HUBS[key] = (hub, users + 1)
        return hub


def release_hub(key: str) -> None:
    """One service stopped using the hub; the last one stops its listener."""
    with _HUBS_LOCK:
        hub, users = _HUBS.get(key, (None, 0))
        if hub is None:
            return
        if users > 1:
            _HUBS[key] = (hub, users - 1)
            return
        del _HUBS[key]
    hub.close()


def drain_all() -> None:
    """Drain every hub of this process (called on SIGTERM by ``infra/gunicorn.conf.py``)."""
    with _HUBS_LOCK:
        hubs = [hub for hub, _ in _HUBS.values()]
    for hub in hubs:
        hub.drain()
