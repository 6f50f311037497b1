"""The Redis connection, key names and the Lua scripts (the only code that changes ticket state).

Every state change of a ticket is one Lua script (``lua/*.lua``), atomic with respect to every other
client: several matchers, API processes and the sweeper can run side by side. Every script declares the
keys it touches (``KEYS``), and all keys of one script share one hash tag — the pool's ``{edition.master}``
for tickets, queues, claims and groups, ``{ratings}`` for the ratings — so a Redis Cluster routes each
script to one shard and spreads the pools over its masters. The one thing that spans pools, "one live
ticket per player", is a separate key per player (see ``TicketService.create``).

Tenants: a player is a (tenant, player id) pair, so the player's pointer and the ratings are keyed by
both (:func:`tenant_segment`). Tickets only meet tickets of their *scope* — their tenant's own, or the shared
pool of the tenants that opted into it — which each ticket and its queue row carry (``scope``), and the ``claim``
script refuses a group whose tickets' scopes differ. The scope is a field of the queue rather than a part of the
pool's hash tag, so that the pools, their leases and their wake-up channels stay the fixed, known set a matcher
and a listener work from, whatever tenants come and go.
With no ``REDIS_URL`` the same scripts run on an in-process fakeredis server (Lua via lupa).

Durability: Redis replicates asynchronously, so a write the master acknowledged in its last moment is missing on
the replica Sentinel promotes. With ``MM_REDIS_WAIT_REPLICAS`` = n every write (a script that changes state, a
stream ticket) is followed, in the same pipeline and so on the same connection, by ``WAIT n`` and counts as done
only once n replicas hold it: Sentinel promotes the replica with the most data, so an acknowledged ticket, claim
or placement survives the loss of the master. Fewer acknowledgements within ``MM_REDIS_WAIT_TIMEOUT`` raise
:class:`NotReplicated`, a lost connection to its callers (503, retried; the write may or may not survive). Timers
the matcher keeps (retry and back-off times, its heartbeat) are written without waiting: losing one delays work,
never loses a ticket.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any
from urllib.parse import quote

import redis
from redis.cluster import RedisCluster

from torres_service import redis_urls

from .config import POOLS, Config

Pool = tuple[str, bool]
_SCRIPTS = ("enqueue", "hold_player", "activate", "claim", "takeover", "release", "confirm", "cancel", "expire",
            "apply_rating", "snapshot", "sizes", "lease")
#: Scripts that change nothing: no ``WAIT`` after them.
_READ_ONLY = frozenset({"snapshot", "sizes"})
_embedded_lock = threading.Lock()
_embedded_server: Any = None


def connect(config: Config) -> Any:
    """A client for ``REDIS_URL`` (a cluster client with ``REDIS_CLUSTER=1``), or for the process-wide
    embedded fakeredis server."""
    if config.redis_url:
        # health checks: a connection idle this long is PINGed before use, so a silently dead one (the wake-up
        # listener's, say) is found and opened again instead of waiting forever
        if config.redis_cluster:
            return RedisCluster.from_url(config.redis_url, decode_responses=True, health_check_interval=30)
        # a redis+sentinel:// URL: the master Sentinel names, looked up again for each new connection
        return redis_urls.client(config.redis_url, decode_responses=True, health_check_interval=30)
    try:
        import fakeredis  # the `embedded` extra: `make run` only, never the image
    except ModuleNotFoundError as exc:
        raise RuntimeError("MM_REDIS_URL is unset (embedded mode), which needs torres-matchmaking[embedded] "
                           "(fakeredis); set MM_REDIS_URL or REDIS_URL to a Redis server") from exc

    global _embedded_server
    with _embedded_lock:
        if _embedded_server is None:
            _embedded_server = fakeredis.FakeServer()
    return fakeredis.FakeRedis(server=_embedded_server, decode_responses=True)


#: The scope of the tenants that opted into the shared pool (``Tenant.shared_pool``). ``*`` is never the
#: :func:`tenant_segment` of a tenant: that quotes it.
SHARED_SCOPE = "*"


def tenant_segment(tenant: str) -> str:
    """A tenant's name as a piece of a key or a queue row: percent-quoted, so that no name — tenants are named
    by their operators, freely — can contain the ``:``, ``/``, ``|`` or braces the key names and rows are cut at,
    and two names never give one segment. ``default`` and the usual names stay as they are."""
    return quote(tenant, safe="-_.@")


def scope_of(tenant: str, shared_pool: bool) -> str:
    """Whom a tenant's players may be matched with: the tenant's own players, or every shared-pool tenant's."""
    return SHARED_SCOPE if shared_pool else tenant_segment(tenant)


def pool_of(ticket_id: str) -> Pool | None:
    """The pool a ticket id belongs to (its first hex digit), or None for an id no pool issued."""
    index = int(ticket_id[0], 16)
    return POOLS[index] if index < len(POOLS) else None


@dataclass(frozen=True)
class Keys:
    """Key names. Pool keys carry the pool's hash tag; the scripts get them all through ``KEYS``."""

    prefix: str = "mm:"

    @staticmethod
    def tag(pool: Pool) -> str:
        return f"{{{pool[0]}.{int(pool[1])}}}"

    def _pool(self, pool: Pool, name: str) -> str:
        return f"{self.prefix}{self.tag(pool)}:{name}"

    def pools(self) -> list[Pool]:
        return list(POOLS)

    def ticket(self, ticket_id: str) -> str:
        pool = pool_of(ticket_id)
        if pool is None:
            raise ValueError(f"ticket id {ticket_id!r} names no pool")
        return self._pool(pool, f"t:{ticket_id}")

    def pool_keys(self, pool: Pool) -> list[str]:
        """KEYS[1..5] of every script that moves tickets: expiry index, queued tickets, claims, callbacks due,
        rating index."""
        return [self.expiry(pool), self.queued(pool), self.claims(pool), self.hooks(pool), self.rated(pool)]

    def rated(self, pool: Pool) -> str:
        """Sorted set: queued ticket id → rating (mu), so a matcher reads only the rating bands it holds."""
        return self._pool(pool, "rated")

    def expiry(self, pool: Pool) -> str:
        """Sorted set: queued ticket id → expires_at."""
        return self._pool(pool, "expiry")

    def queued(self, pool: Pool) -> str:
        """Hash: queued ticket id → "player|rating|counts|created_at|max_wait|expires_at" (what matching reads)."""
        return self._pool(pool, "queued")

    def claims(self, pool: Pool) -> str:
        """Sorted set: group id → when it is next due (a retry, or a takeover of a dead matcher's group)."""
        return self._pool(pool, "claims")

    def hooks(self, pool: Pool) -> str:
        """Sorted set: ticket id → when its callback is next due."""
        return self._pool(pool, "hooks")

    def wake(self, pool: Pool) -> str:
        """Sharded pub/sub channel (not a key): the ids of the pool's tickets whose public status changed, sent by
        the script that changed it (``wake`` in ``lua/_lib.lua``, which derives it from ``expiry``)."""
        return self._pool(pool, "wake")

    def orphans(self, pool: Pool) -> str:
        """Sorted set: game id of a game no ticket holds → when to try abandoning it again."""
        return self._pool(pool, "orphans")

    def group(self, pool: Pool, group_id: str) -> str:
        return self._pool(pool, f"grp:{group_id}")

    def lease(self, pool: Pool, band: int) -> str:
        return self._pool(pool, f"lease:{band}")

    def player(self, tenant: str, player_id: str) -> str:
        """The player's latest ticket. A player id has no ``/``, a tenant segment none either: no two (tenant,
        player) pairs share a key."""
        return f"{self.prefix}p:{tenant_segment(tenant)}/{player_id}"

    def stream_ticket(self, digest: str) -> str:
        """A browser's single-use stream ticket, by the SHA-256 of its secret (a reader of Redis learns no
        usable ticket): what it opens, for whom, until its TTL."""
        return f"{self.prefix}st:{digest}"

    @property
    def matchers(self) -> str:
        return f"{self.prefix}matchers"

    def game(self, game_id: str) -> str:
        return f"{self.prefix}g:{game_id}"

    def rating(self, tenant: str, player_id: str) -> str:
        """A player's rating: per tenant, as players are (alice of one portal is not alice of another)."""
        return f"{self.prefix}{{ratings}}:r:{tenant_segment(tenant)}/{player_id}"

    def leaderboard(self, tenant: str) -> str:
        return f"{self.prefix}{{ratings}}:leaderboard:{tenant_segment(tenant)}"

    @property
    def ratings_position(self) -> str:
        return f"{self.prefix}{{ratings}}:position"

    @property
    def rated_games(self) -> str:
        return f"{self.prefix}{{ratings}}:games"


class Scripts:
    """The Lua scripts; call as ``scripts.run("claim", keys, *argv, client=pipe)``."""

    def __init__(self, client: Any) -> None:
        lib = resources.files(__package__).joinpath("lua/_lib.lua").read_text()
        self._client = client
        self._scripts = {
            name: client.register_script(lib + "\n" + resources.files(__package__).joinpath(f"lua/{name}.lua")
                                         .read_text())
            for name in _SCRIPTS
        }

    def run(self, name: str, keys: Sequence[str], *argv: Any, client: Any = None) -> Any:
        return self._scripts[name](keys=list(keys), args=list(argv), client=client)


class NotReplicated(redis.ConnectionError):
    """The master took a write, but fewer replicas than asked acknowledged it in time: a failover now could lose
    it. A lost connection to every caller: the request is answered 503 and retried, the matcher tries again."""


@dataclass(frozen=True)
class Redis:
    """What the rest of the package needs to talk to Redis: a client, the key names, the scripts, and how many
    replicas must hold a write before it counts (the module's docstring)."""

    client: Any
    keys: Keys
    scripts: Scripts
    cluster: bool = False
    wait_replicas: int = 0
    wait_timeout_ms: int = 1000

    @classmethod
    def open(cls, config: Config) -> Redis:
        client = connect(config)
        replicas = config.redis_wait_replicas if config.redis_url else 0  # fakeredis has no replicas
        return cls(client, Keys(config.key_prefix), Scripts(client), config.redis_cluster, replicas,
                   max(1, round(config.redis_wait_timeout * 1000)))

    def run(self, name: str, keys: Sequence[str], *argv: Any) -> Any:
        """One script, its result once it is replicated as asked."""
        if name in _READ_ONLY or not self.wait_replicas:
            return self.scripts.run(name, keys, *argv)  # one round trip (a pipeline checks its scripts first)
        return self.batch([(name, keys, argv)])[0]

    def set(self, key: str, value: str, px: int) -> None:
        """``SET key value PX px``, done once replicated as asked (on a cluster, on the connection of the node that
        owns the key: WAIT is no keyed command a cluster pipeline could route)."""
        client = self.client.get_redis_connection(self.client.get_node_from_key(key)) if self.cluster else self.client
        pipe = client.pipeline(transaction=False)
        pipe.set(key, value, px=px)
        self._execute(pipe, writes=True)

    def batch(self, calls: Sequence[tuple[str, Sequence[str], Sequence[Any]]]) -> list[Any]:
        """Run several scripts in one round trip per node (a pipeline). Each call is atomic on its own.

        A cluster client refuses scripts in its pipelines, so on a cluster the calls go, grouped by the node
        that owns their keys, through that node's own connection (a plain pipeline, which loads scripts)."""
        if not calls:
            return []
        if not self.cluster:
            return self._pipeline(self.client, calls)
        by_node: dict[str, list[int]] = {}
        nodes: dict[str, Any] = {}
        for i, (_, keys, _) in enumerate(calls):
            node = self.client.get_node_from_key(keys[0])
            nodes[node.name] = node
            by_node.setdefault(node.name, []).append(i)
        results: list[Any] = [None] * len(calls)
        for name, indexes in by_node.items():
            connection = self.client.get_redis_connection(nodes[name])
            for i, r in zip(indexes, self._pipeline(connection, [calls[i] for i in indexes]), strict=True):
                results[i] = r
        return results

    def _pipeline(self, client: Any, calls: Sequence[tuple[str, Sequence[str], Sequence[Any]]]) -> list[Any]:
        pipe = client.pipeline(transaction=False)
        for name, keys, argv in calls:
            self.scripts.run(name, keys, *argv, client=pipe)
        return self._execute(pipe, writes=any(name not in _READ_ONLY for name, _, _ in calls))

    def _execute(self, pipe: Any, writes: bool) -> list[Any]:
        """The pipeline's results; after writes, with ``WAIT`` on its connection (WAIT counts the replicas holding
        this connection's own writes, so it must follow them on the same one)."""
        if not (writes and self.wait_replicas):
            return list(pipe.execute())
        pipe.wait(self.wait_replicas, self.wait_timeout_ms)
        *results, acknowledged = pipe.execute()
        if int(acknowledged) < self.wait_replicas:
            raise NotReplicated(f"{acknowledged} of {self.wait_replicas} replicas acknowledged within "
                                f"{self.wait_timeout_ms} ms")
        return results
