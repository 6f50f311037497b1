"""The HA stand-ins the fault tests run against (infra/ha/): started once per module on free loopback ports, put
back to health after each test (killed nodes restarted, frozen ones resumed, partitions healed), and killed and
removed at the end, whatever happened (and, should the test run itself be killed, swept by the next one:
infra/ha/isolation.py).

The PostgreSQL cluster runs in a network namespace of its own, with the module's tests: a partition is iptables
rules inside it, and the test process's main thread (and every thread and process it starts) sees that namespace's
loopback only until the module ends. A module sets ``PG_SYNCHRONOUS = False`` for asynchronous replication."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "infra" / "ha"))

import isolation
import pg_ha
import redis_ha


@pytest.fixture(scope="module")
def pg_cluster(request: pytest.FixtureRequest) -> Iterator[pg_ha.PgHa]:
    """etcd + 3 Patroni nodes (synchronous_mode unless the module says otherwise) + HAProxy, in a network
    namespace of the module's own: ``pg_cluster.url`` reaches the current primary."""
    missing = pg_ha.missing_tools() + pg_ha.partition_tools_missing()
    if missing:
        pytest.skip(f"HA PostgreSQL stand-in not reachable: missing {', '.join(missing)} "
                    "(apt-get install -y patroni etcd-server haproxy iptables; run as root)")
    with isolation.network_namespace():
        cluster = pg_ha.PgHa(synchronous=getattr(request.module, "PG_SYNCHRONOUS", True))
        try:
            cluster.start()
            yield cluster
        finally:
            cluster.stop()


@pytest.fixture
def pg_ha_cluster(pg_cluster: pg_ha.PgHa) -> Iterator[pg_ha.PgHa]:
    """The module's cluster, healthy at the start of the test and made healthy again after it."""
    pg_cluster.wait_healthy()
    yield pg_cluster
    for node in pg_cluster.nodes:
        pg_cluster.heal(node)
        pg_cluster.thaw(node)
        if node.stopped:
            pg_cluster.restart(node)
    pg_cluster.wait_healthy(120)


@pytest.fixture(scope="module")
def redis_cluster() -> Iterator[redis_ha.RedisHa]:
    """A Redis master, two replicas and three Sentinels in a network namespace of the module's own (as the PostgreSQL
    cluster): ``redis_cluster.url`` is the ``redis+sentinel://`` URL."""
    missing = redis_ha.missing_tools()
    if missing:
        pytest.skip(f"Redis Sentinel stand-in not reachable: missing {', '.join(missing)} "
                    "(apt-get install -y redis-server redis-sentinel)")
    with isolation.network_namespace():
        cluster = redis_ha.RedisHa()
        try:
            cluster.start()
            yield cluster
        finally:
            cluster.stop()


@pytest.fixture
def redis_ha_cluster(redis_cluster: redis_ha.RedisHa) -> Iterator[redis_ha.RedisHa]:
    """The module's Sentinel stand-in, healthy at the start of the test and made healthy again after it."""
    redis_cluster.wait_healthy()
    yield redis_cluster
    for server in redis_cluster.servers:
        if server.process is not None and server.process.poll() is not None:
            redis_cluster.restart(server)
    redis_cluster.wait_healthy()
