"""Real production processes (gunicorn, Celery) on a throwaway database, for the metrics and shutdown tests."""

from __future__ import annotations

import contextlib
import os
import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import redis

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "infra"))
from local_cluster import BIN, GUNICORN_CONF, ROOT, Cluster, Proc, free_port

BROKER_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/13")
MM_REDIS_URL = os.environ.get("TEST_MM_REDIS_URL", "redis://127.0.0.1:6379/14")


@pytest.fixture(scope="module")
def cluster_env(throwaway_database: Callable[[str], contextlib.AbstractContextManager[str]],
                tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """A Cluster that is configured but not started: its env() and its run dir, for single processes."""
    try:
        redis.Redis.from_url(BROKER_URL, socket_timeout=3).ping()
    except redis.RedisError as exc:  # pragma: no cover - depends on the machine
        pytest.skip(f"Redis not reachable at {BROKER_URL}: {exc}")
    with throwaway_database("torres_ops_test") as db:
        cluster = Cluster(db, BROKER_URL, MM_REDIS_URL, tmp_path_factory.mktemp("ops"),
                          namespace=f"torres-ops-{uuid.uuid4().hex[:8]}")
        import subprocess

        subprocess.run([str(BIN / "python"), "-m", "torres_game", "migrate"], env=cluster.env(), cwd=ROOT, check=True,
                       capture_output=True)
        yield cluster
        cluster.clean_redis()


@pytest.fixture
def start_game(cluster_env: Cluster) -> Iterator[Callable[..., Proc]]:
    """``start_game(workers=2, **env)``: a real gunicorn game service on a free port, stopped afterwards."""
    started: list[Proc] = []

    def start(workers: int = 2, **env: str) -> Proc:
        port = free_port()
        proc = Proc(f"game-{len(started)}", [str(BIN / "gunicorn"), "-c", str(GUNICORN_CONF), "torres_game.wsgi:app"],
                    cluster_env.env(PORT=str(port), WEB_CONCURRENCY=str(workers), TORRES_AI_DRIVER="none",
                                    PROMETHEUS_MULTIPROC_DIR=str(cluster_env.run_dir / f"metrics-{port}"), **env),
                    cluster_env.run_dir, health_url=f"http://127.0.0.1:{port}/readyz", port=port)
        started.append(proc)
        proc.start()
        proc.wait_healthy()
        return proc

    yield start
    for proc in started:
        proc.kill()
