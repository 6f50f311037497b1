"""The ticket use cases: create, read, cancel, and the expiry sweep. Nothing here knows HTTP.

A ticket belongs to its player *of its tenant*: :class:`Owner`. Reading, waiting on or cancelling a
ticket with an owner given answers "no such ticket" unless it is that owner's — the same answer as for an id
that does not exist, so another player learns nothing, not even that the id is taken — and changes nothing.
The matcher and the tests call them without an owner: trusted code, not a player.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from torres_service.fields import PLAYER_ID, TICKET_ID
from torres_service.principals import DEFAULT_TENANT
from torres_service.wakeups import Subscription, WakeHub, hub_for, release_hub
from torres_service.webhooks import allowed_networks, url_refusal

from . import metrics
from .config import PLAYER_COUNTS, POOLS, Config
from .errors import (
    InvalidStreamTicket,
    LiveTicketExists,
    MalformedId,
    ServiceUnavailable,
    TicketNotCancellable,
    TicketNotFound,
    ValidationFailed,
)
from .ratings import RatingBook
from .store import Redis, pool_of, scope_of, tenant_segment


@dataclass(frozen=True)
class Owner:
    """Whose a ticket is: a player as their tenant's token names them (alice of one portal is not alice of
    another)."""

    tenant: str
    player_id: str
    #: What the portal's token calls the player (its ``name`` claim): their seats' display name in the games
    #: they are matched into. Not part of who owns a ticket.
    name: str | None = field(default=None, compare=False)

    def owns(self, fields: dict[str, str]) -> bool:
        """Whether a ticket hash is this player's (one written before tenants existed is the default tenant's)."""
        return (fields.get("tenant", tenant_segment(DEFAULT_TENANT)) == tenant_segment(self.tenant)
                and fields.get("player_id") == self.player_id)


def check_ticket_id(ticket_id: str) -> str:
    if not TICKET_ID.accepts(ticket_id):
        raise MalformedId(TICKET_ID.message, ticket_id=ticket_id[:80])
    return ticket_id


def check_player_id(player_id: str) -> str:
    if not PLAYER_ID.accepts(player_id):
        raise MalformedId(PLAYER_ID.message, player_id=player_id[:80])
    return player_id


def public_ticket(fields: dict[str, str], now: float) -> dict[str, Any]:
    """The API's view of a ticket hash. A claim in progress still reads as "queued"."""
    status = fields["status"]
    if status == "claimed":
        status = "queued"
    if status == "queued" and float(fields["expires_at"]) <= now:
        status = "expired"
    doc: dict[str, Any] = {
        "ticket_id": fields["id"],
        "player_id": fields["player_id"],
        "status": status,
        "edition": fields["edition"],
        "master": fields["master"] == "1",
        "player_counts": [int(n) for n in fields["counts"].split(",")],
        "rating": round(float(fields["rating"]), 4),
        "max_wait_seconds": float(fields["max_wait"]) if fields.get("max_wait") else None,
        "created_at": float(fields["created_at"]),
        "expires_at": float(fields["expires_at"]),
    }
    if status == "matched":
        doc.update(game_id=fields["game_id"], seat=int(fields["seat"]), seat_token=fields["token"])
    if fields.get("callback_url"):
        doc["callback_url"] = fields["callback_url"]
    if fields.get("ended_at"):
        doc["ended_at"] = float(fields["ended_at"])
    return doc


class TicketService:
    #: A ticket still pending this long after it was written was left by a crashed create: its player's
    #: pointer may be taken over, and the ticket itself refuses to become matchable.
    PENDING_STALE = 10.0
    FINISHED = frozenset({"matched", "cancelled", "expired"})

    def __init__(self, store: Redis, config: Config, ratings: RatingBook | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.config = config
        self.ratings = ratings
        self.clock = clock
        self._hub: WakeHub | None = None
        self._hub_lock = threading.Lock()
        self._allowed_networks = allowed_networks()  # TORRES_WEBHOOK_ALLOW_NETWORKS: callback_url's exceptions

    @property
    def hub_key(self) -> str:
        """Which Redis (and key space) the waits of this process follow: services on the same one share a hub."""
        return f"matchmaking:{self.config.redis_url or 'embedded'}:{self.config.key_prefix}"

    @property
    def hub(self) -> WakeHub:
        """The process's wake-up hub for this Redis, with its one listener; made at the first wait (a matcher,
        which never waits, opens no subscription)."""
        with self._hub_lock:
            if self._hub is None:
                from .wakeups import RedisWakeListener

                self._hub = hub_for(self.hub_key, max_open=self.config.max_streams,
                                    listener=lambda hub: RedisWakeListener(self.store, hub).start())
            return self._hub

    def close(self) -> None:
        with self._hub_lock:
            if self._hub is not None:
                self._hub = None
                release_hub(self.hub_key)

    def create(self, *, player_id: str, player_counts: Sequence[int], edition: str, master: bool,
               max_wait_seconds: float | None, ttl_seconds: float | None = None,
               callback_url: str | None = None, tenant: str = DEFAULT_TENANT,
               shared_pool: bool = False, display_name: str | None = None) -> dict[str, Any]:
        """Queue a ticket for ``player_id`` of ``tenant``; one live ticket per (tenant, player), across all pools.
        It meets only tickets of its scope: its tenant's own players, or with ``shared_pool`` those of every
        tenant in the shared pool (``Tenant.shared_pool``, read when the ticket is made). ``display_name`` (the
        token's ``name``) becomes the player's seat's display name in the game the ticket is matched into.

        Pools live on different shards of a cluster, so the player's pointer (its own key) cannot change in
        the same script as the ticket. The order makes that safe: the ticket is written *pending* (never
        matched), then the pointer is set by compare-and-set — only over an absent pointer or one naming a
        finished ticket (or a pending one older than ``PENDING_STALE``, left by a crash) — and only then is
        the ticket made matchable, which it refuses once it is that old itself."""
        check_player_id(player_id)
        ttl = ttl_seconds if ttl_seconds is not None else self.config.ticket_ttl
        if max_wait_seconds is not None and max_wait_seconds > ttl:
            raise ValidationFailed("max_wait_seconds must not exceed ttl_seconds",
                                   errors={"max_wait_seconds": [f"at most the ticket's lifetime ({ttl:g} s)"]})
        if callback_url and not self.config.webhook_secret:
            raise ValidationFailed("this server sends no callbacks (it has no MM_WEBHOOK_SECRET)",
                                   errors={"callback_url": ["callbacks are not enabled here"]})
        refusal = callback_url and url_refusal(callback_url, self._allowed_networks)
        if refusal:  # the matcher would post inside the cluster, wherever a player names
            raise ValidationFailed("callback_url is not an outside address", errors={"callback_url": [refusal]})
        rating = (self.ratings or RatingBook(self.store)).get(tenant, player_id)
        now = self.clock()
        pool = (edition, master)
        ticket_id = f"{POOLS.index(pool):x}{uuid.uuid4().hex[1:]}"
        counts = ",".join(str(n) for n in sorted(set(player_counts)))
        key_ttl = int(ttl + self.config.result_ttl) + 1
        keys, store = self.store.keys, self.store
        ticket_keys = [*keys.pool_keys(pool), keys.ticket(ticket_id)]
        store.run("enqueue", ticket_keys, ticket_id, player_id, edition, int(master), counts, repr(rating.mu),
                    repr(rating.sigma), "" if max_wait_seconds is None else repr(max_wait_seconds), repr(now),
                    repr(now + ttl), key_ttl, callback_url or "", tenant_segment(tenant), scope_of(tenant, shared_pool),
                    display_name or "")
        expected = ""
        for _ in range(5):
            ok, *current = store.run("hold_player", [keys.player(tenant, player_id)], ticket_id, expected, key_ttl)
            if ok:
                break
            existing = current[0]
            if self._is_live(existing, now):
                self.store.client.delete(keys.ticket(ticket_id))
                raise LiveTicketExists(f"player {player_id} already has live ticket {existing}", ticket_id=existing)
            expected = existing
        else:  # pragma: no cover - five creates of one player racing in a row
            raise LiveTicketExists(f"player {player_id} is creating tickets concurrently", ticket_id=expected)
        if not store.run("activate", ticket_keys, repr(self.clock()), ticket_id, self.PENDING_STALE):
            raise ServiceUnavailable("the ticket took too long to create; try again")
        metrics.TICKETS_QUEUED.inc()
        return self.get(ticket_id)

    def _is_live(self, ticket_id: str, now: float) -> bool:
        """Whether a player's pointer still names a ticket that counts (queued, claimed, or being created)."""
        if pool_of(ticket_id) is None:
            return False
        status, expires_at, created_at = self.store.client.hmget(
            self.store.keys.ticket(ticket_id), "status", "expires_at", "created_at")
        if status == "claimed":
            return True
        if status == "queued":
            return float(expires_at) > now
        return status == "pending" and now - float(created_at) < self.PENDING_STALE

    def _fields(self, ticket_id: str) -> dict[str, str]:
        check_ticket_id(ticket_id)
        if pool_of(ticket_id) is None:
            return {}
        fields = self.store.client.hgetall(self.store.keys.ticket(ticket_id))
        return {} if fields.get("status") == "pending" else fields

    def _not_found(self, ticket_id: str) -> TicketNotFound:
        """The one answer for an unknown id and for another player's ticket."""
        return TicketNotFound(f"no ticket {ticket_id} (unknown, not yours, or finished more than "
                              f"{self.config.result_ttl} s ago)")

    def get(self, ticket_id: str, owner: Owner | None = None) -> dict[str, Any]:
        """The ticket as the API shows it; with ``owner``, only if it is theirs (checked before anything else
        happens, even the expiry of an overdue ticket)."""
        fields = self._fields(ticket_id)
        if not fields or (owner is not None and not owner.owns(fields)):
            raise self._not_found(ticket_id)
        now = self.clock()
        if fields["status"] == "queued" and float(fields["expires_at"]) <= now:
            pool = pool_of(ticket_id)
            assert pool is not None
            self.store.run("expire", [*self.store.keys.pool_keys(pool), self.store.keys.ticket(ticket_id)],
                                   repr(now), self.config.result_ttl, ticket_id)
            fields = self.store.client.hgetall(self.store.keys.ticket(ticket_id)) or fields
        return public_ticket(fields, now)

    def wait(self, ticket_id: str, status: str | None, timeout: float, owner: Owner | None = None) -> dict[str, Any]:
        """Long-poll: the ticket as soon as its public status differs from ``status`` (None: at once), or as
        it is at ``timeout``. Event-driven: one read now, then one per wake-up of this ticket (see
        :mod:`torres_matchmaking.wakeups`); an idle waiter costs Redis nothing and, under gevent, no OS thread."""
        sub = self.hub.subscribe(ticket_id)  # before the read: no change can slip in between
        try:
            return self.next_change(sub, self.get(ticket_id, owner), status, time.monotonic() + timeout)
        finally:
            self.hub.unsubscribe(sub)

    def next_change(self, sub: Subscription, doc: dict[str, Any], status: str | None,
                    deadline: float) -> dict[str, Any]:
        """Sleep on ``sub`` (subscribed before ``doc`` was read) until the ticket's status differs from
        ``status`` or the monotonic ``deadline`` passes; the ticket then. Reads Redis only when woken (a notice
        for this ticket, or a re-check after the listener subscribed again) and at the ticket's own expiry
        (an unswept ticket reads "expired" from then on, without any script running)."""
        while doc["status"] == status and not sub.closing:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            expires_in = doc["expires_at"] - self.clock() if doc["status"] == "queued" else left + 1
            if sub.wait(min(left, max(0.05, expires_in))) or expires_in <= left:
                sub.take_recheck()
                doc = self.get(doc["ticket_id"])
        return doc

    def cancel(self, ticket_id: str, owner: Owner | None = None) -> dict[str, Any]:
        """Cancel a queued ticket; with ``owner``, only theirs (another's is "no such ticket", left as it was)."""
        keys = self.store.keys
        for _ in range(5):
            fields = self._fields(ticket_id)
            if not fields or (owner is not None and not owner.owns(fields)):
                raise self._not_found(ticket_id)
            pool = pool_of(ticket_id)
            assert pool is not None
            group = fields.get("group", "") if fields["status"] == "claimed" else ""
            ok, status = self.store.run(
                "cancel", [*keys.pool_keys(pool), keys.ticket(ticket_id),
                           keys.group(pool, group) if group else keys.ticket(ticket_id)],
                repr(self.clock()), self.config.result_ttl, ticket_id, group, self.config.claim_timeout)
            if status != "retry":
                break
        if status == "missing":
            raise TicketNotFound(f"no ticket {ticket_id}")
        if not ok:
            shown = "queued" if status == "claimed" else status
            detail = ("the ticket is being placed in a game right now; read it again"
                      if status == "claimed" else f"the ticket is already {status}")
            raise TicketNotCancellable(detail, ticket_status=shown)
        return self.get(ticket_id)

    def expire_due(self, pool: tuple[str, bool], limit: int = 1000) -> int:
        """Expire a pool's queued tickets past their deadline (its matcher calls this every tick)."""
        now = self.clock()
        keys = self.store.keys
        ids = self.store.client.zrangebyscore(keys.expiry(pool), "-inf", now, start=0, num=limit)
        if not ids:
            return 0
        return int(self.store.run("expire", [*keys.pool_keys(pool), *(keys.ticket(t) for t in ids)],
                                          repr(now), self.config.result_ttl, *ids))

    def queue_sizes(self, tenant: str, shared_pool: bool = False) -> dict[str, int]:
        """The non-empty queues a player of ``tenant`` would join: its own scope's (or the shared pool's)."""
        keys = self.store.keys
        scope = scope_of(tenant, shared_pool)
        out = {}
        for edition, master in keys.pools():
            sizes = self.store.run("sizes", keys.pool_keys((edition, master)), scope)
            for n, size in zip(PLAYER_COUNTS, sizes, strict=True):
                if size:
                    out[f"{edition}:{'master' if master else 'base'}:{n}"] = int(size)
        return out

    # -- stream tickets: how a browser's EventSource, which cannot send headers, opens its ticket's stream -------

    def issue_stream_ticket(self, ticket_id: str, owner: Owner) -> tuple[str, float]:
        """A fresh single-use secret that opens ``ticket_id``'s stream once within ``stream_ticket_ttl`` seconds,
        for the ticket's own player only (another's ticket: "no such ticket"). Stored by its SHA-256 with a
        TTL, so Redis expires it by itself; the player token never goes into a URL (access logs, history)."""
        self.get(ticket_id, owner)
        secret = secrets.token_urlsafe(32)
        ttl = self.config.stream_ticket_ttl
        record = json.dumps({"ticket_id": ticket_id, "tenant": owner.tenant, "player_id": owner.player_id})
        self.store.set(self.store.keys.stream_ticket(_digest(secret)), record, px=max(1, int(ttl * 1000)))
        return secret, ttl

    def redeem_stream_ticket(self, secret: str, ticket_id: str) -> Owner:
        """Who a stream ticket was issued to, consuming it (GETDEL: atomic, so of two requests racing with one
        ticket exactly one gets it). Unknown, expired, already used or issued for another ticket: 401."""
        raw = self.store.client.getdel(self.store.keys.stream_ticket(_digest(secret)))
        if raw is None:
            raise InvalidStreamTicket("the stream ticket is unknown, expired or already used: ask for a new one")
        record = json.loads(raw)
        if record["ticket_id"] != ticket_id:
            raise InvalidStreamTicket("the stream ticket was issued for another ticket")
        return Owner(record["tenant"], record["player_id"])


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()
