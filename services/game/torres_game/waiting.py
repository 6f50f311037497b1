"""Event-driven wake-ups: the one mechanism behind long-poll ``/wait``, SSE ``/stream`` and the WebSocket.

The hub (:class:`~torres_service.wakeups.WakeHub`, shared with matchmaking's ticket waits) keeps, per process, the
subscriptions of the waiters of each game. A waiter subscribes
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

A reissue or revocation of a seat token is announced the same way (``pg_notify('torres_seat_tokens', game_id)``
in the transaction that writes the row; in-process on SQLite) to the hub's watchers, so every process forgets the
rows it had read of that game at once (``GameService._seat_tokens``); an append that wrote webhooks notifies
``torres_webhooks``, which wakes the delivery workers (``python -m torres_game webhooks``) the same way.

Hubs are shared per database within a process (:func:`hub_for`), so several app instances in one process
(tests; nothing in production) see each other's appends, and a process holds one listening connection.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from torres_service import wakeups
from torres_service.wakeups import ShuttingDown, StreamLimit, Subscription, WakeHub, drain_all, release_hub

__all__ = ["CHANNEL", "SEAT_TOKENS_CHANNEL", "WEBHOOKS_CHANNEL", "Notice", "PgListener", "SeatTokensChanged",
           "ShuttingDown", "StreamLimit", "Subscription", "WakeHub", "WebhooksWritten", "drain_all", "hub_for",
           "release_hub", "wait_for_version"]

log = logging.getLogger(__name__)

CHANNEL = "torres_games"
#: A game's seat-token rows changed (a reissue or a revocation): its id, sent by the transaction that wrote them.
SEAT_TOKENS_CHANNEL = "torres_seat_tokens"


#: An append wrote webhooks to the outbox: its game's id (migration 0012), for the delivery workers.
WEBHOOKS_CHANNEL = "torres_webhooks"


@dataclass(frozen=True)
class SeatTokensChanged:
    """What a hub's watchers hear when a game's seat tokens were reissued or revoked, in any process."""

    game_id: str


@dataclass(frozen=True)
class WebhooksWritten:
    """What a hub's watchers hear when an append, in any process, wrote webhooks to the outbox."""

    game_id: str


#: The channels whose notices go to a hub's watchers only (no waiter reads them), and what each notice becomes.
_ANNOUNCED: dict[str, Callable[[str], object]] = {SEAT_TOKENS_CHANNEL: SeatTokensChanged,
                                                  WEBHOOKS_CHANNEL: WebhooksWritten}


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
                    for channel in (CHANNEL, *_ANNOUNCED):
                        conn.execute(f"LISTEN {channel}")
                    self.connected.set()
                    delay = 0.05
                    self.hub.recheck_all()  # whatever committed while nobody listened is found by a re-read
                    while not self._stop.is_set():
                        # The timeout only bounds how long a stop() waits; it sends nothing to the server.
                        for item in conn.notifies(timeout=1.0):
                            news = _ANNOUNCED.get(item.channel)
                            if news is not None:
                                self.hub.announce(item.payload, news(item.payload))
                                continue
                            notice = Notice.decode(item.payload)
                            if notice is not None:
                                self.hub.publish(notice.game_id, notice)
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
