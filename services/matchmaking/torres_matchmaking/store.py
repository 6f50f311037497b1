"""The Redis connection, key names and the Lua scripts (the only code that changes ticket state).

Every state change of a ticket is one Lua script (``lua/*.lua``), so it is atomic with respect to
every other client: several matchers, API processes and the sweeper can run side by side.
With no ``REDIS_URL`` the same scripts run on an in-process fakeredis server (Lua via lupa).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from importlib import resources
from typing import Any

import redis

from .config import EDITIONS, PLAYER_COUNTS, Config

_SCRIPTS = ("enqueue", "claim", "release", "confirm", "cancel", "expire", "apply_rating", "snapshot")
_embedded_lock = threading.Lock()
_embedded_server: Any = None


def connect(config: Config) -> redis.Redis:
    """A client for ``REDIS_URL``, or for the process-wide embedded fakeredis server."""
    if config.redis_url:
        return redis.Redis.from_url(config.redis_url, decode_responses=True)
    import fakeredis  # only needed in embedded mode

    global _embedded_server
    with _embedded_lock:
        if _embedded_server is None:
            _embedded_server = fakeredis.FakeServer()
    return fakeredis.FakeRedis(server=_embedded_server, decode_responses=True)


@dataclass(frozen=True)
class Keys:
    """Key names; mirrors the helpers in ``lua/_lib.lua`` (one prefix for the whole deployment)."""

    prefix: str = "mm:"

    def ticket(self, ticket_id: str) -> str:
        return f"{self.prefix}t:{ticket_id}"

    def player(self, player_id: str) -> str:
        return f"{self.prefix}p:{player_id}"

    def queue(self, edition: str, master: bool, players: int) -> str:
        return f"{self.prefix}q:{edition}:{int(master)}:{players}"

    def pools(self) -> list[tuple[str, bool]]:
        """Every (edition, master) pair: tickets only ever meet tickets of the same pool."""
        return [(e, m) for e in EDITIONS for m in (False, True)]

    def pool_queues(self, edition: str, master: bool) -> list[tuple[int, str]]:
        return [(n, self.queue(edition, master, n)) for n in PLAYER_COUNTS]

    @property
    def expiry(self) -> str:
        return f"{self.prefix}expiry"

    @property
    def claims(self) -> str:
        return f"{self.prefix}claims"

    @property
    def matchers(self) -> str:
        return f"{self.prefix}matchers"

    def game(self, game_id: str) -> str:
        return f"{self.prefix}g:{game_id}"

    def rating(self, player_id: str) -> str:
        return f"{self.prefix}r:{player_id}"

    @property
    def leaderboard(self) -> str:
        return f"{self.prefix}leaderboard"

    @property
    def ratings_position(self) -> str:
        return f"{self.prefix}ratings:position"

    @property
    def rated_games(self) -> str:
        return f"{self.prefix}ratings:games"


class Scripts:
    """The Lua scripts, registered once per client; call as ``scripts.claim(*argv, client=pipe)``."""

    def __init__(self, client: redis.Redis, keys: Keys) -> None:
        lib = resources.files(__package__).joinpath("lua/_lib.lua").read_text()
        self._keys = keys
        self._scripts = {
            name: client.register_script(lib + "\n" + resources.files(__package__).joinpath(f"lua/{name}.lua")
                                         .read_text())
            for name in _SCRIPTS
        }

    def run(self, name: str, *argv: Any, client: Any = None) -> Any:
        return self._scripts[name](keys=[], args=[self._keys.prefix, *argv], client=client)


@dataclass(frozen=True)
class Redis:
    """What the rest of the package needs to talk to Redis: a client, the key names, the scripts."""

    client: redis.Redis
    keys: Keys
    scripts: Scripts

    @classmethod
    def open(cls, config: Config) -> Redis:
        client = connect(config)
        keys = Keys(config.key_prefix)
        return cls(client, keys, Scripts(client, keys))
