"""AI worker throughput, end to end: one real Celery worker process plays AI-vs-AI games through the game
service (Redis broker, PostgreSQL store), and we count the AI decisions it appends per minute.

Each level is measured on its own: a fresh worker (``--concurrency 1``: one worker process), ``--games``
2-player games whose seats both play that level, timed from the first enqueue until every game is over.
Uses a throwaway PostgreSQL database and a private Redis queue (DB 13), removed afterwards.

Usage: python bench/ai_bench.py [--levels easy,medium,hard] [--games 3]
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import psycopg
import redis

from torres_ai.config import Settings
from torres_ai.driver import CeleryDriver
from torres_game.config import Config
from torres_game.service import Credentials, GameService
from torres_game.store import PostgresEventStore

ROOT = Path(__file__).resolve().parents[1]
ADMIN_URL = os.environ.get("TEST_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/postgres")
REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/13")
API_KEY = "ai-bench-key"


def measure(level: str, games: int, db_url: str, store: PostgresEventStore) -> tuple[int, float]:
    queue = f"torres-ai-bench-{uuid.uuid4().hex[:8]}"
    env = {**os.environ, "DATABASE_URL": db_url, "CELERY_BROKER_URL": REDIS_URL, "TORRES_AI_QUEUE": queue,
           "TORRES_AI_KEY_PREFIX": queue, "TORRES_API_KEY": API_KEY, "TORRES_ADMIN_KEY": API_KEY,
           "TORRES_AUTO_MIGRATE": "0", "LOG_LEVEL": "WARNING"}
    worker = subprocess.Popen(
        [str(Path(sys.executable).with_name("celery")), "-A", "torres_ai.celery_app", "worker", "--concurrency=1",
         "--pool=prefork", "-Q", queue, "--loglevel=WARNING", "--without-gossip", "--without-mingle"],
        env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    driver = CeleryDriver(Settings.from_env(env))
    config = Config(database_url=db_url, api_key=API_KEY, admin_key=API_KEY, ai_driver="none", json_logs=True,
                    log_level="WARNING")
    service = GameService(store, config, driver)
    service.start()
    try:
        time.sleep(3)  # let the worker connect before the clock starts
        started = time.perf_counter()
        ids = [service.create_game(Credentials(api_key=API_KEY), edition="rio_grande", master=False, options={},
                                   seats=[{"kind": "ai", "level": level}] * 2)["game_id"] for _ in range(games)]
        deadline = time.monotonic() + 1800
        while any(store.get_game(g).status != "over" for g in ids):  # type: ignore[union-attr]
            if time.monotonic() > deadline:
                raise SystemExit(f"{level}: games did not finish in 30 minutes")
            time.sleep(0.2)
        elapsed = time.perf_counter() - started
        decisions = sum(1 for g in ids for e in store.read(g) if e.type == "action_applied")
        return decisions, elapsed
    finally:
        driver.close()
        os.killpg(worker.pid, signal.SIGTERM)
        worker.wait(timeout=30)
        redis.Redis.from_url(REDIS_URL).delete(queue)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--levels", default="easy,medium,hard")
    parser.add_argument("--games", type=int, default=3)
    args = parser.parse_args()
    name = f"torres_ai_bench_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(ADMIN_URL, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    db_url = f"{ADMIN_URL.rpartition('/')[0]}/{name}"
    store = PostgresEventStore(db_url, min_size=1, max_size=4, migrations_dir=ROOT / "infra" / "migrations")
    try:
        store.migrate()
        print(f"{'level':<8}{'games':>6}{'decisions':>11}{'seconds':>9}{'decisions/min/process':>24}")
        for level in args.levels.split(","):
            decisions, elapsed = measure(level, args.games, db_url, store)
            print(f"{level:<8}{args.games:>6}{decisions:>11}{elapsed:>9.1f}{60 * decisions / elapsed:>24.0f}",
                  flush=True)
    finally:
        store.close()
        with psycopg.connect(ADMIN_URL, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
