"""Ticket callbacks: a portal that gave a ``callback_url`` is told when its ticket finishes (matched,
cancelled, expired) by a signed POST, retried with back-off until it answers 2xx.

The script that finishes a ticket also puts it in its pool's ``hooks`` set (same hash slot, same atomic
step), so no callback is lost to a crash; the matcher holding the pool delivers the due ones. Delivery is
at least once: a receiver deduplicates by the ``X-Torres-Delivery`` header.

Signature: ``X-Torres-Signature: sha256=<hex HMAC-SHA256 of "<X-Torres-Timestamp>.<body>" keyed with
MM_WEBHOOK_SECRET>``; the receiver recomputes it and rejects stale timestamps. Signing, the headers, the attempt
and the back-off are :mod:`torres_service.webhooks`, shared with the game service's webhooks: one deadline per
attempt, public addresses only (``TORRES_WEBHOOK_ALLOW_NETWORKS`` lists others allowed).
"""

from __future__ import annotations

import json
import logging
import threading
import time
import urllib.parse
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from torres_service import webhooks

from .config import Config
from .store import Pool, Redis
from .tickets import public_ticket

log = logging.getLogger(__name__)


class CallbackSender:
    """Posts the due callbacks of the pools its matcher holds, off the matcher's thread: each in a slot of its
    own (8), at most :data:`PER_HOST` at once to one callback host, so a portal whose endpoint hangs holds two
    slots for one attempt's deadline (``MM_WEBHOOK_TIMEOUT``), not the matcher's tick nor other portals'
    callbacks. A ticket is posted by one slot at a time; its outcome is recorded when the attempt ends."""

    #: Callbacks in flight at once to one host.
    PER_HOST = 2

    def __init__(self, store: Redis, config: Config, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.config = config
        self.clock = clock
        self._poster = webhooks.Poster(config.webhook_timeout, connections=8)
        self._slots = ThreadPoolExecutor(8, thread_name_prefix="torres-callback")
        self._lock = threading.Lock()
        self._in_flight: set[str] = set()
        self._hosts: Counter[str] = Counter()

    def close(self) -> None:
        self._slots.shutdown(wait=True)
        self._poster.close()

    def deliver_due(self, pool: Pool, limit: int = 50) -> int:
        """Start the attempts of this pool's due callbacks (those not in flight, within each host's share);
        returns how many were started."""
        keys, client = self.store.keys, self.store.client
        started = 0
        for ticket_id in client.zrangebyscore(keys.hooks(pool), "-inf", self.clock(), start=0, num=limit):
            fields = client.hgetall(keys.ticket(ticket_id))
            url = fields.get("callback_url")
            if not url:
                client.zrem(keys.hooks(pool), ticket_id)
                continue
            host = urllib.parse.urlsplit(url).netloc
            with self._lock:
                if ticket_id in self._in_flight or self._hosts[host] >= self.PER_HOST:
                    continue
                self._in_flight.add(ticket_id)
                self._hosts[host] += 1
            self._slots.submit(self._attempt, pool, ticket_id, fields, host)
            started += 1
        return started

    def _attempt(self, pool: Pool, ticket_id: str, fields: dict[str, str], host: str) -> None:
        keys, client = self.store.keys, self.store.client
        try:
            if self._post(fields, self.clock()):
                client.zrem(keys.hooks(pool), ticket_id)
                return
            attempts = int(client.hincrby(keys.ticket(ticket_id), "hook_attempts", 1))
            if attempts >= self.config.webhook_attempts:
                log.error("ticket callback given up", extra={"ticket_id": ticket_id, "attempts": attempts})
                client.zrem(keys.hooks(pool), ticket_id)
            else:
                client.zadd(keys.hooks(pool), {ticket_id: self.clock() + webhooks.backoff(attempts)}, xx=True)
        except Exception:  # Redis away: the ticket stays due and is tried again
            log.exception("ticket callback not recorded", extra={"ticket_id": ticket_id})
        finally:
            with self._lock:
                self._in_flight.discard(ticket_id)
                self._hosts[host] -= 1

    def _post(self, fields: dict[str, str], now: float) -> bool:
        doc = public_ticket(fields, now)
        body = json.dumps({"type": f"ticket.{doc['status']}", "ticket": doc}, sort_keys=True).encode()
        attempt = self._poster.post(fields["callback_url"], self.config.webhook_secret, body,
                                    f"{doc['ticket_id']}.{doc['status']}")
        if attempt.error is not None and attempt.status is None:
            log.warning("ticket callback failed", extra={"ticket_id": doc["ticket_id"], "error": attempt.error})
        elif not attempt.ok:
            log.warning("ticket callback refused", extra={"ticket_id": doc["ticket_id"], "status": attempt.status})
        return attempt.ok
