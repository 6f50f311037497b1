"""The ticket use cases: create, read, cancel, and the expiry sweep. Nothing here knows HTTP."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Sequence
from typing import Any

from torres_service.fields import PLAYER_ID, TICKET_ID

from . import metrics
from .config import Config
from .errors import LiveTicketExists, MalformedId, TicketNotCancellable, TicketNotFound, ValidationFailed
from .ratings import RatingBook
from .store import Redis


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
    if fields.get("ended_at"):
        doc["ended_at"] = float(fields["ended_at"])
    return doc


class TicketService:
    def __init__(self, store: Redis, config: Config, ratings: RatingBook | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.config = config
        self.ratings = ratings
        self.clock = clock

    def _argv_head(self) -> tuple[str, int]:
        return repr(self.clock()), self.config.result_ttl

    def create(self, *, player_id: str, player_counts: Sequence[int], edition: str, master: bool,
               max_wait_seconds: float | None, ttl_seconds: float | None = None) -> dict[str, Any]:
        check_player_id(player_id)
        ttl = ttl_seconds if ttl_seconds is not None else self.config.ticket_ttl
        if max_wait_seconds is not None and max_wait_seconds > ttl:
            raise ValidationFailed("max_wait_seconds must not exceed ttl_seconds",
                                   errors={"max_wait_seconds": [f"at most the ticket's lifetime ({ttl:g} s)"]})
        rating = (self.ratings or RatingBook(self.store)).get(player_id)
        now = self.clock()
        ticket_id = uuid.uuid4().hex
        counts = ",".join(str(n) for n in sorted(set(player_counts)))
        key_ttl = int(ttl + self.config.result_ttl) + 1
        ok, ident = self.store.scripts.run(
            "enqueue", repr(now), self.config.result_ttl, ticket_id, player_id, edition, int(master), counts,
            repr(rating.mu), repr(rating.sigma), "" if max_wait_seconds is None else repr(max_wait_seconds),
            repr(now + ttl), key_ttl,
        )
        if not ok:
            raise LiveTicketExists(f"player {player_id} already has live ticket {ident}", ticket_id=ident)
        metrics.TICKETS_QUEUED.inc()
        return self.get(ticket_id)

    def get(self, ticket_id: str) -> dict[str, Any]:
        check_ticket_id(ticket_id)
        fields = self.store.client.hgetall(self.store.keys.ticket(ticket_id))
        if not fields:
            raise TicketNotFound(f"no ticket {ticket_id} (unknown, or finished more than "
                                 f"{self.config.result_ttl} s ago)")
        now = self.clock()
        if fields["status"] == "queued" and float(fields["expires_at"]) <= now:
            self.store.scripts.run("expire", repr(now), self.config.result_ttl, ticket_id)
            fields = self.store.client.hgetall(self.store.keys.ticket(ticket_id)) or fields
        return public_ticket(fields, now)

    def cancel(self, ticket_id: str) -> dict[str, Any]:
        check_ticket_id(ticket_id)
        ok, status = self.store.scripts.run("cancel", *self._argv_head(), ticket_id)
        if status == "missing":
            raise TicketNotFound(f"no ticket {ticket_id}")
        if not ok:
            shown = "queued" if status == "claimed" else status
            detail = ("the ticket is being placed in a game right now; read it again"
                      if status == "claimed" else f"the ticket is already {status}")
            raise TicketNotCancellable(detail, ticket_status=shown)
        return self.get(ticket_id)

    def expire_due(self, limit: int = 1000) -> int:
        """Expire queued tickets past their deadline (the matcher calls this every tick)."""
        now = self.clock()
        ids = self.store.client.zrangebyscore(self.store.keys.expiry, "-inf", now, start=0, num=limit)
        if not ids:
            return 0
        return int(self.store.scripts.run("expire", repr(now), self.config.result_ttl, *ids))

    def queue_sizes(self) -> dict[str, int]:
        keys = self.store.keys
        pipe = self.store.client.pipeline(transaction=False)
        names = []
        for edition, master in keys.pools():
            for n, key in keys.pool_queues(edition, master):
                names.append(f"{edition}:{'master' if master else 'base'}:{n}")
                pipe.zcard(key)
        return {name: size for name, size in zip(names, pipe.execute(), strict=True) if size}
