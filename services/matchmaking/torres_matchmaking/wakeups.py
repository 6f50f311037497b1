"""Ticket wake-ups: the game service's push design (:mod:`torres_service.wakeups`) on Redis sharded pub/sub.

The Lua script that changes a ticket's public status (matched, cancelled, expired) also ``SPUBLISH``es the ticket
id on its pool's channel (``wake`` in ``lua/_lib.lua``), so a notice exists only for a committed change. Each API
process holds one :class:`RedisWakeListener` per Redis (one ``SSUBSCRIBE`` connection for all pools on a single
Redis; one per pool on a cluster, each to the master that owns the pool's slot) and fans the ids out to its
local waiters through the shared :class:`~torres_service.wakeups.WakeHub`. An idle waiter costs Redis nothing.

**No lost wake-up.** Every time a subscription is (re)established — at start, after redis-py silently reconnected
a killed connection, after this listener reconnected itself — the server's ``ssubscribe`` confirmation makes the
waiters of that pool read their ticket once more: whatever changed while nobody listened is found by that read.

The embedded mode (fakeredis in the process, threads) runs the very same scripts, channels and listener.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from typing import Any

from torres_service.wakeups import WakeHub

from .config import POOLS
from .store import Redis

log = logging.getLogger(__name__)


class RedisWakeListener:
    """Subscribes to the pools' wake channels and hands each ticket id to the hub. Runs in daemon threads
    (greenlets under the gevent worker: redis-py waits cooperatively once gevent has patched the process)."""

    def __init__(self, store: Redis, hub: WakeHub) -> None:
        self.store = store
        self.hub = hub
        self.subscriptions = 0  # confirmations received (initial ones included): each one triggered a re-check
        self.reconnects = 0  # connections this listener had to open again after an error
        self._live: set[str] = set()
        self._lock = threading.Lock()
        self.connected = threading.Event()  # every pool's channel is subscribed
        self._stop = threading.Event()
        channels = [store.keys.wake(pool) for pool in POOLS]
        # On a cluster the channels live on different masters (a shard channel is served by its slot's owner).
        groups = [[c] for c in channels] if store.cluster else [channels]
        self._channels = channels
        self._threads = [threading.Thread(target=self._run, args=(g,), name="mm-wake-listener", daemon=True)
                         for g in groups]

    def start(self) -> RedisWakeListener:
        for thread in self._threads:
            thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(5)

    def _connection(self, channels: list[str]) -> Any:
        """A plain client to the server holding the channels (on a cluster: the master owning their slot)."""
        client = self.store.client
        if not self.store.cluster:
            return client
        return client.get_redis_connection(client.get_node_from_key(channels[0]))

    def _run(self, channels: list[str]) -> None:
        delay = 0.05
        while not self._stop.is_set():
            pubsub = None
            try:
                pubsub = self._connection(channels).pubsub()
                pubsub.ssubscribe(*channels)
                while not self._stop.is_set():
                    # The timeout only bounds how long a stop() waits; it sends nothing to the server.
                    message = pubsub.get_sharded_message(timeout=1.0)
                    if message is None:
                        continue
                    kind = message["type"]
                    if kind == "smessage":
                        self.hub.publish(message["data"])
                    elif kind == "ssubscribe":
                        self._subscribed(message["channel"])
                        delay = 0.05
                    elif kind == "sunsubscribe":  # the slot moved to another master: subscribe there
                        raise ConnectionError(f"{message['channel']} was unsubscribed by the server")
            except Exception as exc:  # any client error: the subscription is gone, subscribe again
                self._lost(channels)
                if self._stop.is_set():
                    break
                self.reconnects += 1
                log.warning("ticket wake-up listener lost its connection; subscribing again",
                            extra={"error": f"{type(exc).__name__}: {exc}", "retry_in_s": delay})
                if self.store.cluster:  # the slot may have a new owner; unreachable now: the next attempt tries
                    with contextlib.suppress(Exception):
                        self.store.client.nodes_manager.initialize()
                self._stop.wait(delay)
                delay = min(delay * 2, 2.0)
            finally:
                if pubsub is not None:
                    with contextlib.suppress(Exception):  # closing a broken connection
                        pubsub.close()
        self._lost(channels)

    def _subscribed(self, channel: str) -> None:
        """The server confirmed a subscription (first, or again after a reconnect): notices flow from here on,
        so the waiters of that pool read their ticket once more — a change made before is found by that read."""
        pool = self._channels.index(channel) if channel in self._channels else -1
        prefix = f"{pool:x}"
        with self._lock:
            self.subscriptions += 1
            self._live.add(channel)
            if len(self._live) == len(self._channels):
                self.connected.set()
        self.hub.recheck_all(keep=(lambda key: key.startswith(prefix)) if pool >= 0 else None)

    def _lost(self, channels: list[str]) -> None:
        with self._lock:
            self._live.difference_update(channels)
            self.connected.clear()
