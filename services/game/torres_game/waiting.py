"""Event-driven wake-ups: the one mechanism behind long-poll ``/wait``, SSE ``/stream`` and the WebSocket.

The hub (:class:`~torres_service.wakeups.WakeHub`, shared with matchmaking's ticket waits) keeps, per process, the
subscriptions of the waiters of each game. A waiter subscribes
*before* it reads the game's version, then sleeps on its own event until a notice for its game arrives, so an
idle waiter costs no database query and no OS thread (under the gevent worker an event is a greenlet wait).

Where notices come from:

* PostgreSQL: the process that appended sends ``pg_notify('torres_games', ...)`` *after* its commit returned
  (:class:`PgNotifier`, one per store, batching what the process committed meanwhile, in a transaction of its own
  that does not wait for the disk; migration 0013), so a notice exists only for a committed event, and no append
  transaction takes PostgreSQL's instance-wide notify lock (which made every appending commit of the instance wait
  for the previous one's WAL flush, when the notice was sent inside the append). One :class:`PgListener`
  connection per process and database ``LISTEN``s and fans each notice out to the local subscribers of that game.
  Two re-reads make a missed notice a late wake-up, never a lost one: when the listening connection is lost it
  reconnects (with back-off) and, once ``LISTEN`` is in place again, tells every subscriber to re-read its
  version; and every :attr:`PgListener.recheck_every` seconds it reads the versions of the games that have
  waiters here (one query) and wakes those that moved unheard: a notice that was never sent (its process died
  between its commit and the notice) costs at most that long.
* SQLite (the embedded default, one process): the service publishes in-process after each append.

A reissue or revocation of a seat token is announced the same way (``pg_notify('torres_seat_tokens', game_id)``
right after the transaction that writes the row; in-process on SQLite) to the hub's watchers, so every process
forgets the rows it had read of that game at once (``credentials.SeatTokenBooks``). Webhooks have no notice: the
delivery workers look at the outbox every ``TORRES_WEBHOOK_INTERVAL``.

Hubs are shared per database within a process (:func:`hub_for`), so several app instances in one process
(tests; nothing in production) see each other's appends, and a process holds one listening connection.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from torres_service import wakeups
from torres_service.wakeups import ShuttingDown, StreamLimit, Subscription, WakeHub, drain_all, release_hub

__all__ = ["CHANNEL", "SEAT_TOKENS_CHANNEL", "Notice", "PgListener", "PgNotifier", "SeatTokensChanged",
           "ShuttingDown", "StreamLimit", "Subscription", "WakeHub", "drain_all", "hub_for", "release_hub",
           "wait_for_version"]

log = logging.getLogger(__name__)

CHANNEL = "torres_games"
#: A game's seat-token rows changed (a reissue or a revocation): its id, sent by the transaction that wrote them.
SEAT_TOKENS_CHANNEL = "torres_seat_tokens"


@dataclass(frozen=True)
class SeatTokensChanged:
    """What a hub's watchers hear when a game's seat tokens were reissued or revoked, in any process."""

    game_id: str


#: The channels whose notices go to a hub's watchers only (no waiter reads them), and what each notice becomes.
_ANNOUNCED: dict[str, Callable[[str], object]] = {SEAT_TOKENS_CHANNEL: SeatTokensChanged}


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


class PgListener:
    """The process's one ``LISTEN`` connection to a PostgreSQL database, fanning notices out to a hub.

    It runs in a daemon thread (a greenlet under the gevent worker: psycopg 3 waits cooperatively once gevent
    has patched the standard library). A lost connection is retried with back-off; after each (re)connect,
    every subscriber re-reads its version. Between notices it re-reads, every :attr:`recheck_every` seconds, the
    versions of the games that have waiters in this process, and wakes those that moved without a notice.
    """

    #: Seconds between two re-reads of the versions of the games waited on here: the longest a wake-up is late
    #: when its notice was never sent (its process died between the commit and the notice, migration 0013). One
    #: primary-key lookup per game waited on, per process, per interval.
    recheck_every = 2.0

    def __init__(self, url: str, hub: WakeHub, *, application_name: str = "torres-listener") -> None:
        self.url = url
        self.hub = hub
        self.application_name = application_name
        self.connected = threading.Event()
        self.reconnects = 0
        self.rechecks = 0  # re-reads run (tests wait on it)
        self._heard: dict[str, int] = {}  # game -> the highest version this listener has handed to its waiters
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
                    for channel in (CHANNEL, *_ANNOUNCED):
                        conn.execute(f"LISTEN {channel}")
                    self.connected.set()
                    delay = 0.05
                    self._heard.clear()
                    self.hub.recheck_all()  # whatever committed while nobody listened is found by a re-read
                    recheck_at = time.monotonic() + self.recheck_every
                    while not self._stop.is_set():
                        # The timeout bounds how long a stop() or the next re-read waits; it sends nothing.
                        for item in conn.notifies(timeout=max(0.0, min(1.0, recheck_at - time.monotonic()))):
                            news = _ANNOUNCED.get(item.channel)
                            if news is not None:
                                self.hub.announce(item.payload, news(item.payload))
                                continue
                            notice = Notice.decode(item.payload)
                            if notice is not None:
                                self._hand_on(notice)
                        if time.monotonic() >= recheck_at:
                            # On this connection, between two notifies() calls: what arrives meanwhile waits in
                            # psycopg's backlog for the next call.
                            self._recheck(conn)
                            recheck_at = time.monotonic() + self.recheck_every
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

    def _hand_on(self, notice: Notice) -> None:
        if notice.version > self._heard.get(notice.game_id, 0):
            self._heard[notice.game_id] = notice.version
        self.hub.publish(notice.game_id, notice)

    def _recheck(self, conn: Any) -> None:
        """One query for the versions of the games waited on here; a game further than any notice heard of it is
        published as if its notice had come. A game seen for the first time is published once at its current
        version (its waiters read it themselves after subscribing, so for them it is a no-op wake-up)."""
        keys = self.hub.keys()
        self._heard = {key: self._heard[key] for key in keys if key in self._heard}  # only games waited on
        if keys:
            rows = conn.execute(
                "SELECT game_id, version, status, coalesce(summary ->> 'to_move', '') FROM games"
                " WHERE game_id = ANY(%s)", (keys,)).fetchall()
            for game_id, version, status, to_move in rows:
                if version > self._heard.get(game_id, 0):
                    self._hand_on(Notice(game_id, version, status, int(to_move) if to_move else None))
        self.rechecks += 1


class PgNotifier:
    """Sends the notices of a process's committed changes, after their commits, from a connection of its own.

    :meth:`send` queues a notice and returns at once; a daemon thread (a greenlet under gevent) sends whatever is
    queued in one ``torres_notify`` call, a transaction that writes nothing else and commits without waiting for
    the disk (migration 0013): it holds PostgreSQL's instance-wide notify lock for microseconds, and the appends,
    which no longer notify, never take it. Notices queued while one call is under way go out together in the next.
    A failed call is retried on a new connection (back-off up to 2 s); past :attr:`max_pending` queued notices the
    oldest are dropped: a notice that is never sent costs a waiter at most :attr:`PgListener.recheck_every`.
    The connection is opened at the first notice, so a process that never writes holds none.
    """

    max_pending = 10_000
    #: Seconds a woken notifier waits for more commits before it sends: at low concurrency every append would
    #: otherwise cost a call of its own (a thread switch, a round trip, a commit record), which slows a lone
    #: writer by a quarter (docs/performance.md, "Writes that scale"); under load notices pile up during each call
    #: anyway. A wake-up waits this much longer.
    linger = 0.002
    #: Seconds from the start of one call to the start of the next, at least: under load a process's notices go
    #: out in batches of this period rather than one call per linger. Each call is a transaction of its own, and with
    #: many writers calls a linger apart take a large share of the cores that the appends need
    #: (`bench/write_bench.py`; the figures in docs/performance.md, "Writes that scale"). A lone notice still waits
    #: only the linger.
    spacing = 0.01

    def __init__(self, url: str, *, application_name: str = "torres-notifier") -> None:
        self.url = url
        self.application_name = application_name
        self.sent = 0  # notices handed to PostgreSQL
        self.calls = 0  # torres_notify calls made
        self.dropped = 0
        self._pending: list[tuple[str, str]] = []
        self._busy = False
        self._closed = False
        self._cond = threading.Condition()
        self._stop = threading.Event()  # set by close(): ends a back-off wait at once
        self._thread: threading.Thread | None = None

    def send(self, channel: str, payload: str) -> None:
        """Queue the notice of a change that has committed (never call it before the commit returned)."""
        with self._cond:
            if self._closed:
                return
            self._pending.append((channel, payload))
            if len(self._pending) > self.max_pending:
                del self._pending[0]
                self.dropped += 1
            if self._thread is None or not self._thread.is_alive():  # the first notice, or a forked child's
                self._busy = False
                self._thread = threading.Thread(target=self._run, name="torres-pg-notifier", daemon=True)
                self._thread.start()
            if len(self._pending) == 1:  # the notifier waits for a first notice; while it lingers, it sleeps on
                self._cond.notify()  # (waking it for every commit cost a thread switch per append)

    def flush(self, timeout: float = 5.0) -> bool:
        """Wait until every notice queued so far has been sent; False when ``timeout`` passed first."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while self._pending or self._busy:
                left = deadline - time.monotonic()
                if left <= 0 or self._thread is None:
                    return False
                self._cond.wait(left)
        return True

    def close(self, timeout: float = 2.0) -> None:
        """Send what is queued (for at most ``timeout`` seconds), then stop."""
        self.flush(timeout)
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def _run(self) -> None:
        import psycopg

        conn: psycopg.Connection[Any] | None = None
        delay = 0.05
        last_call = 0.0  # when the last call started (monotonic)
        try:
            while True:
                with self._cond:
                    while not self._pending and not self._closed:
                        self._cond.wait()
                    until = max(time.monotonic() + self.linger, last_call + self.spacing)
                    while not self._closed and (left := until - time.monotonic()) > 0:
                        self._cond.wait(left)
                    if self._closed and not self._pending:
                        return
                    batch, self._pending = self._pending, []
                    self._busy = True
                    last_call = time.monotonic()
                try:
                    while not self._stop.is_set():
                        try:
                            if conn is None or conn.closed:
                                conn = psycopg.connect(self.url, autocommit=True, connect_timeout=5,
                                                       application_name=self.application_name)
                            conn.execute("SELECT torres_notify(%s, %s)",
                                         ([c for c, _ in batch], [p for _, p in batch]))
                            self.sent += len(batch)
                            self.calls += 1
                            delay = 0.05
                            break
                        except Exception as exc:  # the connection is gone (or the server): a new one, later
                            log.warning("could not send notices; retrying", extra={
                                "error": f"{type(exc).__name__}: {exc}", "notices": len(batch), "retry_in_s": delay})
                            if conn is not None:
                                conn.close()
                            conn = None
                            self._stop.wait(delay)
                            delay = min(delay * 2, 2.0)
                finally:
                    with self._cond:
                        self._busy = False
                        self._cond.notify_all()
        finally:
            if conn is not None:
                conn.close()


def _by_version(old: Notice, new: Notice) -> bool:
    return new.version > old.version


def hub_for(key: str, *, listen_url: str | None, max_open: int) -> WakeHub:
    """The process's hub for the database ``key`` names, listening on ``listen_url`` (PostgreSQL) if given: one
    listening connection per process and database. Pair each call with :func:`release_hub`."""

    def listen(hub: WakeHub) -> PgListener:
        listener = PgListener(listen_url or "", hub)
        listener.start()
        return listener

    return wakeups.hub_for(key, max_open=max_open, newer=_by_version, listener=listen if listen_url else None)


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
