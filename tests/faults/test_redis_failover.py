"""The Celery broker and the matchmaker's store through a real Redis failover (Sentinel: infra/ha/redis_ha.py).

Both are named by one ``redis+sentinel://`` URL (torres_service.redis_urls); after the master is SIGKILLed and
the sentinels promote a replica, the same client objects reach the new master, and what was written (and
replicated, ``WAIT``) before the failover is still there. The matchmaker acknowledges a ticket only once a replica
holds it (``MM_REDIS_WAIT_REPLICAS``): without that, a ticket the master took in its last moment is lost with it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
import redis
import redis_ha

from torres_ai.celery_app import make_app, publish_turn
from torres_ai.config import Settings
from torres_matchmaking.config import Config as MatchmakingConfig
from torres_matchmaking.errors import TicketNotFound
from torres_matchmaking.store import NotReplicated
from torres_matchmaking.store import Redis as MatchmakingStore
from torres_matchmaking.tickets import TicketService
from torres_service import redis_urls
from torres_service.ratelimit_identity import redis_storage_uri

#: Sentinels fail a master over ~2.5 s after it died (DOWN_AFTER_MS 1 s, then an election); a client gives up later.
FAILOVER_LIMIT = 30.0


def until_served(call: Callable[[], Any]) -> tuple[Any, int]:
    """``call()`` retried on Redis errors until it succeeds; its result and how many attempts failed."""
    deadline, failed = time.monotonic() + FAILOVER_LIMIT, 0
    while True:
        try:
            return call(), failed
        except (redis.ConnectionError, redis.TimeoutError, redis.ReadOnlyError, OSError):
            failed += 1
            assert time.monotonic() < deadline, "the client never reached the new master"
            time.sleep(0.2)


def test_the_matchmakers_store_reaches_the_new_master_after_a_failover(redis_ha_cluster: redis_ha.RedisHa) -> None:
    store = MatchmakingStore.open(MatchmakingConfig(redis_url=f"{redis_ha_cluster.url}?db=1", log_level="WARNING"))
    client = store.client
    pipe = client.pipeline(transaction=False)  # WAIT counts its own connection's writes: the same connection
    pipe.set("mm:probe", "before")
    pipe.wait(1, 500)
    assert pipe.execute()[-1] >= 1  # a replica has it
    old = redis_ha_cluster.master()
    new = redis_ha_cluster.kill_master()
    assert new is not old
    _, failed = until_served(lambda: client.set("mm:probe-after", "after"))
    assert client.get("mm:probe") == "before" and client.get("mm:probe-after") == "after"
    assert failed <= 2, f"{failed} commands failed after the sentinels named the new master"
    assert redis.Redis(port=new.port, db=1).get("mm:probe-after") == b"after"  # the database the URL names


def queue_ticket(service: TicketService, player: str) -> dict[str, Any]:
    return service.create(player_id=player, player_counts=[2], edition="rio_grande", master=False,
                          max_wait_seconds=None)


def test_a_ticket_is_acknowledged_only_once_a_replica_holds_it(redis_ha_cluster: redis_ha.RedisHa) -> None:
    url = f"{redis_ha_cluster.url}?db=1"
    waiting = MatchmakingConfig(redis_url=url, log_level="WARNING", redis_wait_replicas=1, redis_wait_timeout=0.5)
    safe = TicketService(MatchmakingStore.open(waiting), waiting)
    unsafe_config = waiting.with_(redis_wait_replicas=0)
    unsafe = TicketService(MatchmakingStore.open(unsafe_config), unsafe_config)
    kept = queue_ticket(safe, "kept")  # replicated: acknowledged
    old = redis_ha_cluster.master()
    assert old.process is not None
    redis_ha_cluster.stall_replication()
    try:
        lost = queue_ticket(unsafe, "lost")  # acknowledged by the master alone
        with pytest.raises(NotReplicated):  # the API answers it 503 store_unavailable (tests/matchmaking)
            queue_ticket(safe, "refused")
        old.process.kill()  # its kernel keeps resending what it held for the replicas: until a replica is
        old.process.wait(timeout=10)  # promoted (and has left the old link), that must still not reach them
        redis_ha_cluster.wait_for_master(other_than=old, timeout=FAILOVER_LIMIT)
    finally:
        redis_ha_cluster.resume_replication()
    fetched, _ = until_served(lambda: safe.get(kept["ticket_id"]))
    assert fetched["status"] == "queued"  # the acknowledged ticket survived the master's loss
    with pytest.raises(TicketNotFound):  # what waiting prevents: an acknowledged ticket gone with the master
        until_served(lambda: unsafe.get(lost["ticket_id"]))
    retried, _ = until_served(lambda: queue_ticket(safe, "refused"))  # the refused create, retried, is taken once
    assert safe.get(retried["ticket_id"])["status"] == "queued"


def test_the_celery_broker_publishes_to_the_new_master_after_a_failover(
        redis_ha_cluster: redis_ha.RedisHa, monkeypatch: pytest.MonkeyPatch) -> None:
    # as the processes have it: Celery itself reads CELERY_BROKER_URL, and must not take this URL from there as is
    monkeypatch.setenv("CELERY_BROKER_URL", redis_ha_cluster.url)
    settings = Settings.from_env()
    app = make_app(settings)
    queue = f"faults-{time.monotonic_ns()}"
    reader = redis_urls.client(redis_ha_cluster.url, socket_timeout=1)
    try:
        publish_turn(app, queue, "game-before", 1, 3)
        assert reader.llen(queue) == 1 and reader.wait(1, 500) >= 1
        redis_ha_cluster.kill_master()
        until_served(lambda: publish_turn(app, queue, "game-after", 1, 5))
        length, _ = until_served(lambda: reader.llen(queue))
        assert length == 2  # the message published before the failover survived it, the one after is queued
    finally:
        app.close()


def test_the_rate_limit_storage_takes_the_sentinel_url() -> None:
    url = "redis+sentinel://10.0.0.1:26379,10.0.0.2:26379/torres?db=2"
    assert redis_storage_uri(url) == "redis+sentinel://10.0.0.1:26379,10.0.0.2:26379/torres"
    assert redis_storage_uri("redis://10.0.0.1:6379/2") == "redis://10.0.0.1:6379/2"
