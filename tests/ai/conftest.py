"""Fixtures for the AI worker: a throwaway PostgreSQL database, a private Redis queue, real workers.

Like ``tests/game/conftest.py`` (which we reuse in spirit, not by import, so neither suite depends on
the other's internals): a uniquely named database per session, dropped at the end. Redis is the real
server on DB 13 (``TEST_REDIS_URL``); every session uses its own queue name and key prefix so parallel
developers and CI runs never steal each other's tasks, and only our own keys are deleted afterwards.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from polling import wait_until
from postgres_store import postgres_store_fixtures

from torres_game.access import Credentials
from torres_game.config import Config
from torres_game.service import GameService
from torres_game.store import PostgresEventStore

ROOT = Path(__file__).resolve().parents[2]
MIGRATIONS = ROOT / "infra" / "migrations"
REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/13")
API_KEY = "ai-test-service-key"
SERVICE = Credentials(api_key=API_KEY)
CELERY = str(Path(sys.executable).with_name("celery"))

pg_url, pg_store = postgres_store_fixtures("torres_ai_test", max_size=6)


def game_config(database_url: str, **changes: Any) -> Config:
    return Config(
        database_url=database_url, api_key=API_KEY, admin_key="ai-test-admin-key", snapshot_every=50,
        ai_driver="none", migrations_dir=MIGRATIONS, json_logs=True, log_level="WARNING",
    ).with_(**changes)


@pytest.fixture(scope="session")
def redis_namespace() -> Iterator[str]:
    """A unique queue name and key prefix on the test Redis DB; our keys are removed at the end."""
    client = redis.Redis.from_url(REDIS_URL, socket_timeout=3)
    try:
        client.ping()
    except redis.RedisError as exc:  # pragma: no cover - depends on the machine
        pytest.skip(f"Redis not reachable at {REDIS_URL}: {exc}")
    namespace = f"torres-ai-test-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    yield namespace
    for pattern in (f"{namespace}*", "celery-task-meta-ai:*", "_kombu.binding.*test*"):
        keys = list(client.scan_iter(pattern, count=1000))
        if keys:
            client.delete(*keys)
    client.close()


def worker_env(pg_url: str, namespace: str, **extra: str) -> dict[str, str]:
    """The environment of a worker (and of the settings the test publishes with)."""
    env = {
        **os.environ,
        "DATABASE_URL": pg_url,
        "CELERY_BROKER_URL": REDIS_URL,
        "TORRES_AI_QUEUE": namespace,
        "TORRES_AI_BULK_QUEUE": f"{namespace}-bulk",
        "TORRES_AI_METRICS_PORT": "0",
        "TORRES_AI_KEY_PREFIX": namespace,
        "TORRES_API_KEY": API_KEY,
        "TORRES_ADMIN_KEY": "ai-test-admin-key",
        "TORRES_AUTO_MIGRATE": "0",
        "TORRES_MIGRATIONS_DIR": str(MIGRATIONS),
        "LOG_LEVEL": "WARNING",
        "TORRES_AI_SWEEP_INTERVAL": "2",
        "TORRES_AI_SWEEP_AFTER": "4",
        "TORRES_AI_VISIBILITY_TIMEOUT": "3600",
        "PYTHONUNBUFFERED": "1",
    }
    env.update(extra)
    return env


class Worker:
    """A real ``celery -A torres_ai.celery_app worker`` process group, started and stopped by a test."""

    def __init__(self, env: dict[str, str], log_path: Path, beat: bool, schedule: Path) -> None:
        args = [CELERY, "-A", "torres_ai.celery_app", "worker", "--loglevel=INFO", "--pool=prefork",
                "--concurrency=1", "-Q", f"{env['TORRES_AI_QUEUE']},{env['TORRES_AI_BULK_QUEUE']}",
                "-n", f"{uuid.uuid4().hex[:6]}@%h",
                "--without-gossip", "--without-mingle", "--without-heartbeat"]
        if beat:
            args += ["-B", "-s", str(schedule)]
        self.log_path = log_path
        self._log = open(log_path, "ab")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(args, env=env, cwd=ROOT, stdout=self._log, stderr=subprocess.STDOUT,
                                     start_new_session=True)

    def kill(self) -> None:
        """SIGKILL the whole process group: the parent and its pool processes die mid-task."""
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()
        self._log.close()

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")[-4000:]

    def records(self, msg: str | None = None) -> list[dict[str, Any]]:
        """The worker's structured log lines (one JSON object each), optionally those with this message."""
        out = []
        for line in self.log_path.read_text(errors="replace").splitlines():
            if line.startswith("{"):
                with contextlib.suppress(ValueError):
                    record = json.loads(line)
                    if msg is None or record.get("msg") == msg:
                        out.append(record)
        return out

    def turn_outcome(self, task_id: str, timeout: float = 60) -> str:
        """The outcome the worker logged for one task (results are not stored: nothing else reads them)."""
        found: list[str] = []

        def logged() -> bool:
            found[:] = [r["outcome"] for r in self.records("ai turn") if r.get("task_id") == task_id]
            return bool(found)

        wait_until(logged, timeout, f"the worker to log task {task_id}", self.log)
        return found[0]


@pytest.fixture
def start_worker(tmp_path: Path, pg_url: str, redis_namespace: str) -> Iterator[Callable[..., Worker]]:
    workers: list[Worker] = []

    def start(beat: bool = True, **extra: str) -> Worker:
        n = len(workers)
        worker = Worker(worker_env(pg_url, redis_namespace, **extra), tmp_path / f"worker{n}.log", beat,
                        tmp_path / f"beat{n}")
        workers.append(worker)
        return worker

    yield start
    for worker in workers:
        worker.stop()


@pytest.fixture
def purge_queue(redis_namespace: str) -> Iterator[None]:
    """Start and end each worker test with an empty private queue."""
    client = redis.Redis.from_url(REDIS_URL)
    client.delete(redis_namespace, f"{redis_namespace}-bulk")
    yield
    client.delete(redis_namespace, f"{redis_namespace}-bulk")
    client.close()



def make_service(store: PostgresEventStore, pg_url: str, driver: Any) -> GameService:
    service = GameService(store, game_config(pg_url), driver)
    service.start()
    return service


