"""Event-driven wake-ups: the one mechanism behind long-poll ``/wait``, SSE ``/stream`` and the WebSocket.

A :class:`WakeHub` keeps, per process, the subscriptions of the waiters of each game. A waiter subscribes
*before* it reads the game's version, then sleeps on its own event until a notice for its game arrives, so an
idle waiter costs no database query and no OS thread (under the gevent worker an event is a greenlet wait).

Where notices come from:

* PostgreSQL: the append transaction itself sends ``pg_notify('torres_games', ...)`` (a trigger on the
  ``games`` row, migration 0004), so a notice exists only for a committed event. One :class:`PgListener`
  connection per process and database ``LISTEN``s and fans each notice out to the local subscribers of that
  game. When the listening connection is lost it reconnects (with back-off) and, once ``LISTEN`` is in
  place again, tells every subscriber to re-read its version: an append made while nobody listened is found
  by that re-check, so no wake-up is lost for good.
* SQLite (the embedded default, one process): the service publishes in-process after each append.

Hubs are shared per database within a process (:func:`hub_for`), so several app instances in one process
(tests; nothing in production) see each other's appends, and a process holds one listening connection.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from torres_service.errors import ServiceError

log = logging.getLogger(__name__)

CHANNEL = "torres_games"


@dataclass(frozen=True)
class Notice:
    """What the database (or the in-process publisher) says about one committed append."""

    game_id: str
    version: int
    status: str
    to_move: int | None

    def encode(self) -> str:
        return f"{self.game_id} {self.version} {self.status} {'' if self.to_move is None else self.to_move}"

    @classmethod
    def decode(cls, payload: str) -> Notice | None:
        """The trigger's payload ``game_id version status to_move`` (to_move empty when nobody moves)."""
        try:
            game_id, version, status, to_move = payload.rsplit(" ", 3)
            return cls(game_id, int(version), status, int(to_move) if to_move else None)
        except ValueError:
            log.warning("unreadable notification payload", extra={"payload": payload[:200]})
            return None


class Subscription:
    """One waiter's mailbox: the newest notice for its game, or an order to re-read (``recheck``)."""

    __slots__ = ("_event", "active", "closing", "game_id", "latest", "recheck")

    def __init__(self, game_id: str) -> None:
        self.game_id = game_id
        self.active = True
        self.latest: Notice | None = None
        self.recheck = False
        self.closing = False
        self._event = threading.Event()  # a gevent Event under the gevent worker (monkey-patched)

    def _offer(self, notice: Notice) -> None:
        if self.latest is None or notice.version > self.latest.version:
            self.latest = notice
        self._event.set()

    def _poke(self, *, closing: bool = False) -> None:
        self.recheck = True
        self.closing = self.closing or closing
        self._event.set()

    def wait(self, timeout: float) -> bool:
        """Sleep until something arrives (True) or ``timeout`` passes (False); consumes the wake-up."""
        woke = self._event.wait(max(0.0, timeout))
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
    """The subscriptions of one process for one database, and the count of open waits and streams."""

    def __init__(self, max_open: int = 10_000) -> None:
        self.max_open = max_open
        self._subs: dict[str, set[Subscription]] = {}
        self._lock = threading.Lock()
        self._open = 0
        self.draining = False
        self.listener: PgListener | None = None

    # -- subscribers --------------------------------------------------------------------------

    def subscribe(self, game_id: str) -> Subscription:
        """Register a waiter (and count it against ``max_open``); pair with :meth:`unsubscribe`."""
        with self._lock:
            if self.draining:
                raise ShuttingDown("this server process is draining; connect again (to another replica)")
            if self._open >= self.max_open:
                raise StreamLimit(f"this server process already holds {self._open} open waits and streams")
            self._open += 1
            sub = Subscription(game_id)
            self._subs.setdefault(game_id, set()).add(sub)
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        """Idempotent: a stream's close callback and its error path may both call it."""
        with self._lock:
            if not sub.active:
                return
            sub.active = False
            self._open -= 1
            subs = self._subs.get(sub.game_id)
            if subs is not None:
                subs.discard(sub)
                if not subs:
                    del self._subs[sub.game_id]

    @property
    def open_count(self) -> int:
        return self._open

    # -- publishers ---------------------------------------------------------------------------

    def publish(self, notice: Notice) -> None:
        """Wake the subscribers of ``notice.game_id`` in this process."""
        with self._lock:
            subs = list(self._subs.get(notice.game_id, ()))
        for sub in subs:
            sub._offer(notice)

    def recheck_all(self) -> None:
        """Tell every subscriber to re-read its game's version (notices may have been missed)."""
        with self._lock:
            subs = [sub for group in self._subs.values() for sub in group]
        for sub in subs:
            sub._poke()

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


class PgListener:
    """The process's one ``LISTEN`` connection to a PostgreSQL database, fanning notices out to a hub.

    It runs in a daemon thread (a greenlet under the gevent worker: psycopg 3 waits cooperatively once gevent
    has patched the standard library). A lost connection is retried with back-off; after each (re)connect,
    every subscriber re-reads its version.
    """

    def __init__(self, url: str, hub: WakeHub, *, application_name: str = "torres-listener") -> None:
        self.url = url
        self.hub = hub
        self.application_name = application_name
        self.connected = threading.Event()
        self.reconnects = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="torres-pg-listener", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)

    def _run(self) -> None:
        import psycopg

        delay = 0.05
        while not self._stop.is_set():
            try:
                with psycopg.connect(
                    self.url, autocommit=True, application_name=self.application_name, connect_timeout=5,
                    keepalives=1, keepalives_idle=10, keepalives_interval=5, keepalives_count=3,
                ) as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    self.connected.set()
                    delay = 0.05
                    self.hub.recheck_all()  # whatever committed while nobody listened is found by a re-read
                    while not self._stop.is_set():
                        # The timeout only bounds how long a stop() waits; it sends nothing to the server.
                        for item in conn.notifies(timeout=1.0):
                            notice = Notice.decode(item.payload)
                            if notice is not None:
                                self.hub.publish(notice)
            except Exception as exc:  # any driver error: the connection is gone, listen again
                self.connected.clear()
                if self._stop.is_set():
                    return
                self.reconnects += 1
                log.warning("notification listener lost its connection; reconnecting",
                            extra={"error": f"{type(exc).__name__}: {exc}", "retry_in_s": delay})
                self._stop.wait(delay)
                delay = min(delay * 2, 2.0)
        self.connected.clear()


_HUBS: dict[str, tuple[WakeHub, int]] = {}  # database URL -> (hub, number of services using it)
_HUBS_LOCK = threading.Lock()


def hub_for(key: str, *, listen_url: str | None, max_open: int) -> WakeHub:
    """The process's hub for the database ``key`` names, listening on ``listen_url`` (PostgreSQL) if given: one
    listening connection per process and database. Pair each call with :func:`release_hub`."""
    with _HUBS_LOCK:
        hub, users = _HUBS.get(key, (None, 0))
        if hub is None:
            hub = WakeHub(max_open)
            if listen_url:
                hub.listener = PgListener(listen_url, hub)
                hub.listener.start()
        hub.max_open = max_open
        _HUBS[key] = (hub, users + 1)
        return hub


def release_hub(key: str) -> None:
    """One service stopped using the hub; the last one closes its listening connection."""
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


def wait_for_version(
    sub: Subscription, read: Callable[[], int | None], version: int, timeout: float, *, current: int | None = None
) -> int | None:
    """Block until the game's version exceeds ``version`` or ``timeout`` passes; return the version known then.

    ``sub`` must be subscribed before this call so that no notice can slip between the first read and the
    sleep. The database is read once at the start (unless the caller passes the ``current`` version it read after
    subscribing) and again only when the listener asks for a re-check.
    """
    deadline = time.monotonic() + timeout
    if current is None:
        current = read()
    while current is not None and current <= version and not sub.closing:
        left = deadline - time.monotonic()
        if left <= 0 or not sub.wait(left):
            break
        if sub.take_recheck():
            current = read()
        elif sub.latest is not None:
            current = max(current, sub.latest.version)
    return current
