"""AI workers end to end (real Celery workers, Redis broker, PostgreSQL store), two measurements.

``throughput`` (per level): one fresh worker process (``--concurrency 1``) plays ``--games`` 2-player games
whose seats all play that level; AI decisions appended per second, from the first enqueue until every game
is over (fold + decide + append + publish per decision).

``latency`` (humans first): ``--workers`` worker processes (default 2, ``--concurrency 1`` each) and
``--human-games`` games of 4 seats, one "human" (this script, playing at once) and three ``--level`` AIs. For
every action of the human that hands the move on, the time until the human is to move again. Measured twice
in one run: alone, then beside ``--background`` AI-only games of the same shape started first and ``--analyses``
post-game analyses (``--depth``) of finished games requested first (both go to the bulk queue, the human games to
the high-priority one). Prints median, p95 and max of both and their ratio.

Uses a throwaway PostgreSQL database and private queue names on ``TEST_REDIS_URL`` (removed afterwards).

Usage: python bench/ai_bench.py throughput [--levels easy,medium,hard] [--games 2]
       python bench/ai_bench.py latency [--human-games 4] [--background 20] [--samples 8] [--workers 2] [--fifo]
                                        [--analyses 0] [--depth deep] [--analysis-players 2]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import signal
import statistics
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import redis

import torres_rules as tr
from torres_ai.config import Settings
from torres_ai.driver import CeleryDriver
from torres_game.access import Credentials
from torres_game.config import Config
from torres_game.service import GameService
from torres_game.store import PostgresEventStore

ROOT = Path(__file__).resolve().parents[1]
ADMIN_URL = os.environ.get("TEST_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/postgres")
REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/13")
API_KEY = "ai-bench-key"
SERVICE = Credentials(api_key=API_KEY)


@contextlib.contextmanager
def database() -> Iterator[tuple[str, PostgresEventStore]]:
    name = f"torres_ai_bench_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(ADMIN_URL, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    db_url = f"{ADMIN_URL.rpartition('/')[0]}/{name}"
    store = PostgresEventStore(db_url, min_size=1, max_size=8, migrations_dir=ROOT / "infra" / "migrations")
    try:
        store.migrate()
        yield db_url, store
    finally:
        store.close()
        with psycopg.connect(ADMIN_URL, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextlib.contextmanager
def stack(db_url: str, store: PostgresEventStore, workers: int, fifo: bool = False
          ) -> Iterator[tuple[GameService, Settings]]:
    """``workers`` worker processes consuming the private high-priority and bulk queues (``fifo``: one queue for
    all, i.e. without humans first), and a game service whose Celery driver publishes to them."""
    queue = f"torres-ai-bench-{uuid.uuid4().hex[:8]}"
    env = {**os.environ, "DATABASE_URL": db_url, "CELERY_BROKER_URL": REDIS_URL, "TORRES_AI_QUEUE": queue,
           "TORRES_AI_BULK_QUEUE": queue if fifo else f"{queue}-bulk", "TORRES_AI_KEY_PREFIX": queue,
           "TORRES_API_KEY": API_KEY, "TORRES_ADMIN_KEY": API_KEY, "TORRES_AUTO_MIGRATE": "0", "LOG_LEVEL": "WARNING",
           "TORRES_AI_METRICS_PORT": "0"}
    settings = Settings.from_env(env)
    procs = [subprocess.Popen(
        [str(Path(sys.executable).with_name("celery")), "-A", "torres_ai.celery_app", "worker", "--concurrency=1",
         "--pool=prefork", "-Q", ",".join(dict.fromkeys([settings.queue, settings.bulk_queue])),
         "--loglevel=WARNING", "-n", f"bench{n}-{uuid.uuid4().hex[:4]}@%h", "--without-gossip", "--without-mingle"],
        env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        for n in range(workers)]
    driver = CeleryDriver(settings)
    config = Config(database_url=db_url, api_key=API_KEY, admin_key=API_KEY, ai_driver="none", json_logs=True,
                    log_level="WARNING")
    service = GameService(store, config, driver)
    service.start()
    try:
        time.sleep(3)  # let the workers connect before any clock starts
        yield service, settings
    finally:
        driver.close()
        for proc in procs:
            os.killpg(proc.pid, signal.SIGTERM)
        for proc in procs:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
        client = redis.Redis.from_url(REDIS_URL)
        keys = list(client.scan_iter(f"{queue}*", count=1000))
        if keys:
            client.delete(*keys)


def throughput(level: str, games: int) -> tuple[int, float]:
    with database() as (db_url, store), stack(db_url, store, workers=1) as (service, _):
        started = time.perf_counter()
        ids = [service.creation.create_game(SERVICE, edition="rio_grande", master=False, options={},
                                   seats=[{"kind": "ai", "level": level}] * 2)["game_id"] for _ in range(games)]
        deadline = time.monotonic() + 1800
        while any(store.get_game(g).status != "over" for g in ids):  # type: ignore[union-attr]
            if time.monotonic() > deadline:
                raise SystemExit(f"{level}: games did not finish in 30 minutes")
            time.sleep(0.2)
        elapsed = time.perf_counter() - started
        decisions = sum(1 for g in ids for e in store.read(g) if e.type == "action_applied")
        return decisions, elapsed


def human_waits(service: GameService, level: str, samples: int, seed: int) -> list[float]:
    """One human-vs-AI game: the human plays a random legal action as soon as it is to move; after each of its
    turns (set-up placements are not counted), the seconds until it is to move again."""
    seats = [{"kind": "human", "player_id": "bench"}] + [{"kind": "ai", "level": level}] * 3
    game = service.creation.create_game(SERVICE, edition="rio_grande", master=False, options={}, seats=seats)
    gid, me, rng = game["game_id"], Credentials(token=game["seats"][0]["token"]), random.Random(seed)
    waits: list[float] = []
    handed_on: float | None = None
    deadline = time.monotonic() + 600
    while len(waits) < samples and time.monotonic() < deadline:
        version, state = service.games.state_at(gid)
        if tr.is_over(state):
            break
        if state.to_move != 0:  # the AI seats' move: wait until the game moves past `version`
            service.queries.wait(gid, version=version, timeout=5)
            continue
        if handed_on is not None:
            waits.append(time.perf_counter() - handed_on)
            handed_on = None
        submitted = service.commands.submit_action(gid, me, seat=0, action=rng.choice(tr.legal_actions(state)),
                                          expected_version=version, command_id=f"bench-{version}")
        if state.stage == "turn" and not submitted.body["legal_actions"]:  # a turn ended: the AI seats' turns
            handed_on = time.perf_counter()
    return waits


def latency_round(service: GameService, level: str, human_games: int, samples: int) -> list[float]:
    results: list[list[float]] = [[] for _ in range(human_games)]

    def run(i: int) -> None:
        results[i] = human_waits(service, level, samples, seed=i)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(human_games)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return [w for r in results for w in r]


def describe(waits: list[float]) -> tuple[float, float, float]:
    ordered = sorted(waits)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return statistics.median(ordered), p95, ordered[-1]


def finished_game(service: GameService, seed: int, players: int) -> str:
    """A game played to its end in this process (random legal actions, no AI seat): one to analyse."""
    seats = [{"kind": "human", "player_id": f"p{n}"} for n in range(players)]
    game = service.creation.create_game(SERVICE, edition="rio_grande", master=False, options={}, seats=seats)
    gid, rng = game["game_id"], random.Random(seed)
    while not tr.is_over(state := service.games.state_at(gid)[1]):
        seat = state.to_move
        assert seat is not None
        service.commands.submit_action(gid, Credentials(token=game["seats"][seat]["token"]), seat=seat,
                                       action=rng.choice(tr.legal_actions(state)),
                                       expected_version=service.games.state_at(gid)[0],
                                       command_id=f"fin-{rng.getrandbits(64)}")
    return gid


def latency(args: argparse.Namespace) -> None:
    with database() as (db_url, store), stack(db_url, store, args.workers, args.fifo) as (service, settings):
        finished = [finished_game(service, seed, args.analysis_players)  # before any clock starts
                    for seed in range(args.analyses)]
        alone = latency_round(service, args.level, args.human_games, args.samples)
        seats = [{"kind": "ai", "level": args.level}] * 4
        background = [service.creation.create_game(SERVICE, edition="rio_grande", master=False, options={},
                                          seats=seats)["game_id"] for _ in range(args.background)]
        analysed = time.perf_counter()
        for gid in finished:
            service.analyses.request(gid, SERVICE, depth=args.depth)
        time.sleep(5)  # the bulk queue fills: every background game has a turn waiting or running
        client = redis.Redis.from_url(REDIS_URL)
        bulk_depth = client.llen(settings.bulk_queue)  # with --fifo: the one queue
        beside = latency_round(service, args.level, args.human_games, args.samples)
        still_active = sum(1 for g in background if store.get_game(g).status != "over")  # type: ignore[union-attr]
        played = sum(store.current_version(g) or 0 for g in background)
        engine = service.analyses.engine()
        rows = [store.get_analysis(g, engine.version, args.depth) for g in finished] if engine else []
        ready_at_end = sum(1 for r in rows if r is not None and r.status == "ready")
        turns_at_end = sum(len(r.result["turns"]) if r.result else engine.turns_done(r.progress)  # type: ignore[union-attr]
                           for r in rows if r is not None)
        cpu_at_end = sum(r.cpu_seconds for r in rows if r is not None)
        waited = time.perf_counter() - analysed
    (m0, p0, x0), (m1, p1, x1) = describe(alone), describe(beside)
    print(f"{args.human_games} human games (1 human + 3 {args.level} AI), {args.workers} workers x 1 process"
          + (", ONE FIFO queue for all games (humans-first off)" if args.fifo else ", humans first"))
    print(f"{'':<34}{'samples':>8}{'median s':>10}{'p95 s':>8}{'max s':>8}")
    print(f"{'no background games':<34}{len(alone):>8}{m0:>10.2f}{p0:>8.2f}{x0:>8.2f}")
    label = f"beside {args.background} AI-only games" + (f", {args.analyses} {args.depth} analyses" if args.analyses
                                                          else "")
    print(f"{label:<34}{len(beside):>8}{m1:>10.2f}{p1:>8.2f}{x1:>8.2f}")
    print(f"median ratio (beside / alone): {m1 / m0:.2f}   (target <= 1.5; p95 target <= 5 s)")
    print(f"bulk queue depth when the second round started: {bulk_depth}; background games still running at its "
          f"end: {still_active}/{args.background}; background versions appended: {played}")
    if args.analyses:
        print(f"analyses ({args.depth}) when the second round ended, {waited:.0f} s after they were requested: "
              f"{ready_at_end}/{args.analyses} ready, {turns_at_end} turns analysed, {cpu_at_end:.1f} CPU s spent")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    tp = sub.add_parser("throughput")
    tp.add_argument("--levels", default="easy,medium,hard")
    tp.add_argument("--games", type=int, default=2)
    lat = sub.add_parser("latency")
    lat.add_argument("--human-games", type=int, default=4)
    lat.add_argument("--background", type=int, default=20)
    lat.add_argument("--samples", type=int, default=8, help="waits measured per human game and round")
    lat.add_argument("--workers", type=int, default=2)
    lat.add_argument("--level", default="hard")
    lat.add_argument("--fifo", action="store_true", help="one queue for every game: the comparison without priority")
    lat.add_argument("--analyses", type=int, default=0,
                     help="finished games whose post-game analysis is requested before the second round (bulk queue)")
    lat.add_argument("--depth", default="deep", choices=("quick", "deep"), help="the analyses' depth")
    lat.add_argument("--analysis-players", type=int, default=2, choices=(2, 3, 4),
                     help="seats of the analysed games (4: the longest units of work)")
    args = parser.parse_args()
    if args.command == "throughput":
        print(f"{'level':<8}{'games':>6}{'decisions':>11}{'seconds':>9}{'decisions/s/process':>22}")
        for level in args.levels.split(","):
            decisions, elapsed = throughput(level, args.games)
            print(f"{level:<8}{args.games:>6}{decisions:>11}{elapsed:>9.1f}{decisions / elapsed:>22.1f}", flush=True)
    else:
        latency(args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
