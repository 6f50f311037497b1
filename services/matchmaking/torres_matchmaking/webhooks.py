"""Ticket callbacks: a portal that gave a ``callback_url`` is told when its ticket finishes (matched,
cancelled, expired) by a signed POST, retried with back-off until it answers 2xx.

The script that finishes a ticket also puts it in its pool's ``hooks`` set (same hash slot, same atomic
step), so no callback is lost to a crash; the matcher holding the pool delivers the due ones. Delivery is
at least once: a receiver deduplicates by the ``X-Torres-Delivery`` header.

Signature: ``X-Torres-Signature: sha256=<hex HMAC-SHA256 of "<X-Torres-Timestamp>.<body>" keyed with
MM_WEBHOOK_SECRET>``; the receiver recomputes it and rejects stale timestamps. Signing, the headers, the attempt
and the back-off are :mod:`torres_service.webhooks`, shared with the game service's webhooks.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable

from torres_service import webhooks

from .config import Config
from .store import Pool, Redis
from .tickets import public_ticket

log = logging.getLogger(__name__)


class CallbackSender:
    def __init__(self, store: Redis, config: Config, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.config = config
        self.clock = clock
        self._poster = webhooks.Poster(config.webhook_timeout, connections=1)

    def close(self) -> None:
        self._poster.close()

    def deliver_due(self, pool: Pool, limit: int = 50) -> int:
        """Deliver this pool's due callbacks; returns how many were accepted."""
        keys, client = self.store.keys, self.store.client
        now = self.clock()
        delivered = 0
        for ticket_id in client.zrangebyscore(keys.hooks(pool), "-inf", now, start=0, num=limit):
            fields = client.hgetall(keys.ticket(ticket_id))
            if not fields.get("callback_url"):
                client.zrem(keys.hooks(pool), ticket_id)
                continue
            if self._post(fields, now):
                client.zrem(keys.hooks(pool), ticket_id)
                delivered += 1
                continue
            attempts = int(client.hincrby(keys.ticket(ticket_id), "hook_attempts", 1))
            if attempts >= self.config.webhook_attempts:
                log.error("ticket callback given up", extra={"ticket_id": ticket_id, "attempts": attempts})
                client.zrem(keys.hooks(pool), ticket_id)
            else:
                client.zadd(keys.hooks(pool), {ticket_id: now + webhooks.backoff(attempts)}, xx=True)
        return delivered

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
