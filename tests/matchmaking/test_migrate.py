"""``migrate-keys``: ratings written before the ``{ratings}`` hash tag, or before ratings were per tenant,
move to their new keys, once, on one Redis and on a 3-master cluster (where the old keys sit on other shards than
the new ones)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

from torres_matchmaking.config import Config
from torres_matchmaking.migrate import migrate_keys
from torres_matchmaking.ratings import RatingBook
from torres_matchmaking.store import Redis


def _old_layout(client: Any) -> None:
    """What a deployment of the oldest layout had written (keys without hash tags)."""
    client.hset("mm:r:alice", mapping={"mu": "31.5", "sigma": "4.25", "games": "12"})
    client.hset("mm:r:bob", mapping={"mu": "22.0", "sigma": "5.0", "games": "3"})
    client.expire("mm:r:bob", 86_400)
    client.zadd("mm:leaderboard", {"alice": 18.75, "bob": 7.0})
    client.set("mm:ratings:position", "4711")
    client.sadd("mm:ratings:games", "g1", "g2", "g3")


def test_migrate_keys_moves_the_old_ratings_once(backend: tuple[str, bool, Any]) -> None:
    url, cluster, client = backend
    _old_layout(client)
    store = Redis.open(Config(redis_url=url, redis_cluster=cluster))
    client.hset("mm:{ratings}:r:carol", mapping={"mu": "40", "sigma": "1", "games": "99"})  # no tenant
    client.hset("mm:{ratings}:r:default/dora", mapping={"mu": "30", "sigma": "2", "games": "5"})  # already new: kept

    report = migrate_keys(store)
    assert report.to_json() == {"moved": 6, "completed": 0, "conflicts": []}
    book = RatingBook(store)
    alice = book.get("default", "alice")
    assert (alice.mu, alice.sigma, alice.games) == (31.5, 4.25, 12)
    assert 0 < client.ttl("mm:{ratings}:r:default/bob") <= 86_400  # the TTL moves with the key
    assert client.zrange("mm:{ratings}:leaderboard:default", 0, -1, withscores=True) == [("bob", 7.0),
                                                                                        ("alice", 18.75)]
    assert client.get("mm:{ratings}:position") == "4711"
    assert client.smembers("mm:{ratings}:games") == {"g1", "g2", "g3"}
    assert not any(client.exists(k) for k in ("mm:r:alice", "mm:r:bob", "mm:leaderboard", "mm:ratings:position",
                                              "mm:ratings:games", "mm:{ratings}:r:carol"))
    assert book.get("default", "carol").mu == 40.0 and book.get("default", "dora").mu == 30.0
    assert book.get("portal-a", "carol").games == 0  # another tenant's carol is somebody else

    assert migrate_keys(store).to_json() == {"moved": 0, "completed": 0, "conflicts": []}  # idempotent

    # A run that died between RESTORE and DEL is completed; a new key with other content is a conflict, kept.
    client.hset("mm:r:alice", mapping={"mu": "31.5", "sigma": "4.25", "games": "12"})
    client.set("mm:ratings:position", "1")
    report = migrate_keys(store)
    assert report.to_json() == {"moved": 0, "completed": 1, "conflicts": ["mm:ratings:position"]}
    assert client.get("mm:{ratings}:position") == "4711" and client.get("mm:ratings:position") == "1"


def test_migrate_keys_command(backend: tuple[str, bool, Any]) -> None:
    """``--tenant``: the old ratings were one portal's, now a tenant of the tenants file."""
    url, cluster, client = backend
    _old_layout(client)
    env = {**os.environ, "REDIS_URL": url, "REDIS_CLUSTER": "1" if cluster else "0", "LOG_LEVEL": "ERROR"}
    run = [sys.executable, "-m", "torres_matchmaking", "migrate-keys", "--tenant", "portal-a"]
    first = subprocess.run(run, env=env, capture_output=True, text=True, timeout=60)
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout) == {"moved": 5, "completed": 0, "conflicts": []}
    again = subprocess.run(run, env=env, capture_output=True, text=True, timeout=60)
    assert again.returncode == 0 and json.loads(again.stdout)["moved"] == 0
    book = RatingBook(Redis.open(Config(redis_url=url, redis_cluster=cluster)))
    assert book.get("portal-a", "alice").mu == 31.5 and book.get("default", "alice").games == 0
    assert book.leaderboard("portal-a", 10, 0)["total"] == 2
