"""``python -m torres_matchmaking migrate-keys [--tenant NAME]``: move the ratings written before the keys had hash
tags, or before ratings were per tenant.

A player is a (tenant, player id) pair and each tenant has its own ratings and leaderboard
(``<prefix>{ratings}:r:<tenant>/<player>``, ``<prefix>{ratings}:leaderboard:<tenant>``). Ratings written before
— in either older layout below — belonged to the one portal there was: they move to ``--tenant`` (default
``default``, the tenant of the single-key setup; name the portal's tenant when switching to a tenants file).
The consumer's position and the set of rated games stay global.

In the oldest layout the ratings lived at ``<prefix>r:<player>``, ``<prefix>leaderboard``, ``<prefix>ratings:position``
and ``<prefix>ratings:games``; they now live under the ``{ratings}`` hash tag (``<prefix>{ratings}:r:<player>``
…, see :class:`~torres_matchmaking.store.Keys`) so that a Redis Cluster keeps them on one shard and
``apply_rating.lua`` can declare them. Tickets, queues and groups are short-lived and need no move (a deployment
drains its queues, or lets the old tickets expire); ratings, the consumer's position and the set of rated games
are the state that must survive the upgrade. Run this once with the new code, **before** starting the ratings
consumers (a consumer without its position would start from the beginning of the game service's log).

Each key is moved exactly (``DUMP``/``RESTORE`` with its TTL, then ``DEL``), which works across the shards of a
cluster where ``RENAME`` cannot. Idempotent: a second run finds nothing to move; a run interrupted between
``RESTORE`` and ``DEL`` is completed by the next one (the new key already holds the same value). A new key that
holds something else (a consumer ran on the new layout before the move) is left alone with its old key and
reported as a conflict, for an operator to decide.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from torres_service.principals import DEFAULT_TENANT

from .store import Redis


@dataclass
class MigrationReport:
    moved: int = 0
    completed: int = 0  # the new key already held the same value (an interrupted earlier run): old key dropped
    conflicts: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"moved": self.moved, "completed": self.completed, "conflicts": self.conflicts}


TAGGED = "{ratings}:"


def _old_to_new(store: Redis, old: str, tenant: str) -> str | None:
    """The new name of an old-layout ratings key (without the hash tag, or without a
    tenant — a player id has no ``/``, a tenant's rating key has one), or None for any other key."""
    prefix, keys = store.keys.prefix, store.keys
    rest = old[len(prefix):]
    for rating in ("r:", f"{TAGGED}r:"):
        if rest.startswith(rating) and "/" not in rest[len(rating):]:
            return keys.rating(tenant, rest[len(rating):])
    return {"leaderboard": keys.leaderboard(tenant), f"{TAGGED}leaderboard": keys.leaderboard(tenant),
            "ratings:position": keys.ratings_position, "ratings:games": keys.rated_games}.get(rest)


def _old_keys(store: Redis) -> list[tuple[Any, str]]:
    """(client of the node holding it, key) for every old-layout ratings key, scanned on every master."""
    client = store.client
    nodes = [client.get_redis_connection(n) for n in client.get_primaries()] if store.cluster else [client]
    p = store.keys.prefix
    out = []
    for node in nodes:
        for pattern in (f"{p}r:*", f"{p}leaderboard", f"{p}ratings:position", f"{p}ratings:games",
                        f"{p}{TAGGED}r:*", f"{p}{TAGGED}leaderboard"):
            out += [(node, key) for key in node.scan_iter(match=pattern, count=1000)]
    return out


def _value(client: Any, key: str) -> Any:
    """A comparable reading of a ratings key (hash, sorted set, string or set)."""
    kind = client.type(key)
    if kind == "hash":
        return kind, client.hgetall(key)
    if kind == "zset":
        return kind, client.zrange(key, 0, -1, withscores=True)
    if kind == "set":
        return kind, sorted(client.smembers(key))
    return kind, client.get(key)


def migrate_keys(store: Redis, tenant: str = DEFAULT_TENANT) -> MigrationReport:
    report = MigrationReport()
    client = store.client
    for node, old in _old_keys(store):
        new = _old_to_new(store, old, tenant)
        if new is None:
            continue
        payload = node.dump(old)  # bytes (redis-py never decodes a DUMP payload)
        if payload is None:  # gone meanwhile (another run)
            continue
        ttl = max(0, int(node.pttl(old)))
        if client.exists(new):
            if _value(client, new) == _value(node, old):
                node.delete(old)
                report.completed += 1
            else:
                report.conflicts.append(old)
            continue
        client.restore(new, ttl, payload)
        node.delete(old)
        report.moved += 1
    return report
