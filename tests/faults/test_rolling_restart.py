"""A rolling restart of every game-service process (infra/local_cluster.py: both replicas, then the webhook
worker, each SIGTERMed as Kubernetes does and healthy again before the next) while players play over HTTP with
retries, SSE and WebSocket watchers follow their games, and webhooks go to an endpoint on loopback.

What a deploy must not cost: an acknowledged action lost or applied twice, a version a watcher skips or sees twice,
a webhook never delivered. A request the restart catches is refused (a refused connection, a 503) and retried on
the other replica with the same ``command_id``; never a 500.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import redis

from . import checker, load

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "infra"))
from local_cluster import Cluster

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.timeout(600)]

BROKER_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/13")
MM_REDIS_URL = os.environ.get("TEST_MM_REDIS_URL", "redis://127.0.0.1:6379/14")


@pytest.fixture
def stack(throwaway_database: Callable[[str], contextlib.AbstractContextManager[str]],
          tmp_path: Path) -> Iterator[tuple[Cluster, load.Receiver]]:
    for url in (BROKER_URL, MM_REDIS_URL):
        try:
            redis.Redis.from_url(url, socket_timeout=3).ping()
        except redis.RedisError as exc:  # pragma: no cover - depends on the machine
            pytest.skip(f"Redis not reachable at {url}: {exc}")
    receiver = load.Receiver()
    with throwaway_database("torres_rolling_test") as db:
        cluster = Cluster(db, BROKER_URL, MM_REDIS_URL, tmp_path / "run", ai_workers=0, matchers=0,
                          web_concurrency=1, extra_env={
                              "TORRES_WEBHOOK_URL": receiver.url, "TORRES_WEBHOOK_SECRET": "rolling-restart-secret",
                              "TORRES_WEBHOOK_ALLOW_NETWORKS": "127.0.0.0/8", "TORRES_AI_DRIVER": "none"})
        try:
            cluster.start()
            yield cluster, receiver
        finally:
            for proc in cluster.procs.values():
                proc.kill()
            cluster.clean_redis()
            receiver.stop()


def webhooks_written(client: load.Client) -> dict[str, str]:
    """Every webhook the service wrote (delivery id -> game), from its delivery log."""
    written, after = {}, 0
    while True:
        page = client.request("GET", "/v1/webhooks/deliveries", params={"after": after, "limit": 200}).json()
        for delivery in page["deliveries"]:
            written[delivery["delivery_id"]] = delivery["game_id"]
        if not page["deliveries"]:
            return written
        after = page["next_after"]


def test_a_rolling_restart_of_every_game_service_process_loses_and_repeats_nothing(
        stack: tuple[Cluster, load.Receiver]) -> None:
    cluster, receiver = stack
    record, stop, errors = load.Record(), threading.Event(), []

    def player() -> None:
        try:
            load.play(load.Client(cluster.game_urls, record, headers={"X-API-Key": cluster.api_key}),
                      cluster.api_key, stop, against_ai=False)
        except BaseException as exc:  # reported by the test's thread
            errors.append(exc)
            stop.set()

    threads = [threading.Thread(target=player, daemon=True) for _ in range(2)]
    for thread in threads:
        thread.start()
    time.sleep(2)
    restarted = cluster.rolling_restart()
    time.sleep(2)
    stop.set()
    for thread in threads:
        thread.join(load.RETRY_FOR + 60)
    assert not errors and not record.errors, errors + record.errors
    assert set(restarted) == {"game-1", "game-2", "webhooks"}

    admin = load.Client(cluster.game_urls, load.Record(), headers={"X-Admin-Key": cluster.admin_key})
    problems: list[str] = []
    for game_id in sorted(record.games):
        events = admin.request("GET", f"/v1/games/{game_id}/events", params={"limit": 1000}).json()["events"]
        problems += checker.log_problems(game_id, events, record.acked[game_id])
        final = events[-1]["version"] if events else 0
        for watch in record.watches:
            if watch.game_id == game_id:
                problems += checker.watcher_problems(watch.name, watch.seen, final, watch.ended)
    portal = load.Client(cluster.game_urls, load.Record(), headers={"X-API-Key": cluster.api_key})
    deadline = time.monotonic() + 60
    while checker.webhook_problems(written := webhooks_written(portal), receiver.delivered) and \
            time.monotonic() < deadline:
        time.sleep(1)
    problems += checker.webhook_problems(written, receiver.delivered)
    assert not problems, problems
    assert sum(len(a) for a in record.acked.values()) > 10 and written and record.watches
    assert not [c for c in record.calls if c.status >= 500 and c.status != 503], "a request answered 5xx"
    assert any(not c.ok for c in record.calls) or sum(w.reconnects for w in record.watches), \
        "the restart caught no request and no stream: it tested nothing"
