"""Matchmaking benchmark: how fast queued tickets are matched, by one matcher and by several dividing the pools.

Two parts, in one run:

1. **Quality** (one matcher, ticked by hand): ``--tickets`` queued tickets with mixed ratings and player counts
   until all are matched; rating spread of the games, AI-filled games. Tickets were created at random times over
   the last 60 s (so windows differ) and may be AI-filled after 30 s; stragglers are matched by later passes
   with the clock fast-forwarded, which in production would be real waiting.
2. **Scaling**: ``--tickets`` tickets queued, then 1, 2, 4 matcher *processes* (``--matchers``) started together
   drain them; tickets matched per second, on one Redis and on a Redis Cluster of 3 masters (``--backends``),
   both started by the benchmark on free loopback ports. Then ``--big`` (default 100 000) tickets drained by the
   largest matcher count, on each backend. Every ticket has waited past its AI-fill limit, so each pool is
   drained in one pass and the figure is the matchers' own throughput.

Game creation is an instant in-process stand-in here: the figure of interest is the matchmaker itself —
reading the pools, grouping, the Lua claims and confirmations. The fault and race tests exercise the real game
service over HTTP. Prints per-run figures and the medians; the machine may be shared, so compare the rows of
one run with each other (ratios), not with another machine's.

    .venv/bin/python bench/matchmaking_bench.py [--tickets 20000] [--runs 3] [--matchers 1,2,4]
        [--backends single,cluster] [--big 100000] [--idle 5] [--embedded]
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing as mp
import os
import random
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from torres_matchmaking.config import EDITIONS, POOLS, Config
from torres_matchmaking.game_client import CreatedGame
from torres_matchmaking.matcher import Matcher
from torres_matchmaking.store import Redis
from torres_service.logs import configure_logging

# The Redis servers and the cluster it measures are started by the tests' helper (tests/local_redis.py).
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from local_redis import LocalRedis

COUNTS = ["2", "3", "4", "2,3", "3,4", "2,3,4"]


class InstantGames:
    """Creates "games" without a game service: ids and seat tokens only. Like the game service, the same
    Idempotency-Key gives the same game (a group taken over by another matcher under load is not an orphan)."""

    def create_game(
        self, edition: str, master: bool, seats: list[dict[str, Any]], request_key: str | None = None,
        tenant: str | None = None,
    ) -> CreatedGame:
        game_id = uuid.uuid5(uuid.NAMESPACE_URL, request_key).hex if request_key else uuid.uuid4().hex
        return CreatedGame(game_id, [{**s, "seat": i, "token": "t"} for i, s in enumerate(seats)])

    def abandon_game(self, game_id: str, reason: str) -> None:  # pragma: no cover - no orphans without faults
        pass


class Clock:
    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        return time.time() + self.offset


def clear(store: Redis) -> None:
    nodes = store.client.get_primaries() if store.cluster else [None]
    for node in nodes:
        client = store.client.get_redis_connection(node) if node else store.client
        keys = list(client.scan_iter(f"{store.keys.prefix}*", count=5000))
        for key in keys:  # one by one: on a cluster the keys of one call must share a slot
            client.unlink(key)


def enqueue(store: Redis, n: int, rng: random.Random, spread: float = 60.0) -> None:
    """Queue ``n`` tickets the way the API does (pending, then activated), minus the per-player pointer,
    which only the API reads."""
    now = time.time()
    keys = store.keys
    calls: list[tuple[str, list[str], list[Any]]] = []
    for i in range(n):
        created = now - rng.uniform(0, spread) - (60.0 - spread)
        mu = min(50.0, max(0.0, rng.gauss(25, 6)))
        pool = (rng.choice(EDITIONS), rng.random() < 0.3)
        tid = f"{POOLS.index(pool):x}{uuid.uuid4().hex[1:]}"
        tkeys = [*keys.pool_keys(pool), keys.ticket(tid)]
        calls.append(("enqueue", tkeys, [tid, f"bench{i}", pool[0], int(pool[1]), rng.choice(COUNTS), repr(mu), "3.0",
                                         "30", repr(created), repr(now + 600), 4000, "", "default", "default"]))
        calls.append(("activate", tkeys, [repr(created), tid, 10]))
        if len(calls) >= 5000:
            store.batch(calls)
            calls = []
    store.batch(calls)


def queued(store: Redis) -> int:
    return sum(int(store.client.hlen(store.keys.queued(p))) + int(store.client.zcard(store.keys.claims(p)))
               for p in store.keys.pools())


# -- part 1: quality ---------------------------------------------------------------------------------------------

def quality_once(config: Config, n: int, seed: int) -> dict[str, float]:
    store = Redis.open(config)
    clear(store)
    enqueue(store, n, random.Random(seed))
    clock = Clock()
    matcher = Matcher(store, config, InstantGames(), clock=clock, rng=random.Random(seed))
    spreads: list[float] = []
    humans = ai_games = passes = 0
    started = time.perf_counter()
    first_pass = 0.0
    after_first = 0
    while humans < n:
        report = matcher.tick()
        passes += 1
        for _, group in report.games:
            humans += len(group.tickets)
            if group.ai_levels:
                ai_games += 1
            else:
                spreads.append(group.spread)
        if passes == 1:
            first_pass = time.perf_counter() - started
            after_first = humans
        if not report.created:
            clock.offset += 5.0  # stragglers: let time pass for their windows (and AI fill)
        if passes > 100:
            raise RuntimeError(f"not all matched: {humans}/{n}")
    total = time.perf_counter() - started
    matcher.close()
    clear(store)
    return {"total_s": total, "first_pass_s": first_pass, "matched_first_pass": after_first, "passes": passes,
            "games": len(spreads) + ai_games, "ai_filled_games": ai_games,
            "mean_spread": statistics.fmean(spreads), "max_spread": max(spreads),
            "simulated_wait_s": clock.offset}


def quality(config: Config, tickets: int, runs: int) -> None:
    print(f"quality: {tickets} tickets, one matcher; window base {config.window_base}, +{config.window_growth}/s, "
          f"max {config.window_max} (openskill mu units)")
    rows = []
    for run in range(runs):
        row = quality_once(config, tickets, seed=run)
        rows.append(row)
        print(f"  run {run + 1}: all matched in {row['total_s']:.3f} s ({row['passes']} passes, "
              f"first pass {row['first_pass_s']:.3f} s matched {row['matched_first_pass']}), "
              f"{row['games']} games ({row['ai_filled_games']} AI-filled), rating spread mean "
              f"{row['mean_spread']:.3f} max {row['max_spread']:.3f}, "
              f"simulated waiting {row['simulated_wait_s']:.0f} s")
    med = {k: statistics.median(r[k] for r in rows) for k in rows[0]}
    print(f"median: all {tickets} matched in {med['total_s']:.3f} s (first pass {med['first_pass_s']:.3f} s, "
          f"{med['matched_first_pass']:.0f} matched); {med['games']:.0f} games, "
          f"{med['ai_filled_games']:.0f} AI-filled; spread mean {med['mean_spread']:.3f}, max {med['max_spread']:.3f}")


# -- part 2: scaling ---------------------------------------------------------------------------------------------

def _matcher_process(config: Config, ready: Any, go: Any, stop: Any, cpu: Any) -> None:
    configure_logging("torres_matchmaking", "WARNING")
    store = Redis.open(config)
    matcher = Matcher(store, config, InstantGames())
    store.client.hset(store.keys.matchers, matcher.leases.owner, time.time())  # counted before anyone leases
    ready.wait()
    go.wait()
    started = time.process_time()
    while not stop.is_set():
        if not matcher.tick().busy:
            time.sleep(config.tick_seconds)
    cpu.put(time.process_time() - started)
    matcher.close()


def _redis_cpu(store: Redis) -> list[float]:
    """CPU seconds each Redis server has used so far (user + system)."""
    nodes = store.client.get_primaries() if store.cluster else [None]
    out = []
    for node in nodes:
        info = (store.client.get_redis_connection(node) if node else store.client).info("cpu")
        out.append(float(info["used_cpu_user"]) + float(info["used_cpu_sys"]))
    return out


@contextlib.contextmanager
def matcher_processes(config: Config, matchers: int) -> Iterator[tuple[Any, list[float]]]:
    """``matchers`` matcher processes, started and waiting for ``go.set()``; when the block ends they are stopped
    and the list holds the CPU seconds each used."""
    ctx = mp.get_context("fork")
    ready, go, stop, cpu = ctx.Barrier(matchers + 1), ctx.Event(), ctx.Event(), ctx.Queue()
    procs = [ctx.Process(target=_matcher_process, args=(config, ready, go, stop, cpu)) for _ in range(matchers)]
    for p in procs:
        p.start()
    ready.wait()
    used: list[float] = []
    try:
        yield go, used
    finally:
        stop.set()
        used.extend(cpu.get(timeout=60) for _ in procs)
        for p in procs:
            p.join(timeout=60)


def drain(config: Config, tickets: int, matchers: int, seed: int) -> dict[str, float]:
    """Queue ``tickets``, start ``matchers`` processes at once, time until every pool is empty."""
    store = Redis.open(config)
    clear(store)
    enqueue(store, tickets, random.Random(seed), spread=0.0)  # all waited 60 s: one pass drains a pool
    with matcher_processes(config, matchers) as (go, matcher_cpu):
        redis_before = _redis_cpu(store)
        started = time.perf_counter()
        go.set()
        while queued(store):
            time.sleep(0.005)
        elapsed = time.perf_counter() - started
        redis_used = [after - before for before, after in zip(redis_before, _redis_cpu(store), strict=True)]
    matched = _matched(store)
    clear(store)
    # what one core per process would give: the busiest process (a matcher or a Redis server) sets the pace
    busiest = max(*matcher_cpu, *redis_used)
    return {"seconds": elapsed, "matched": matched, "rate": matched / elapsed, "cpu_rate": matched / busiest,
            "matcher_cpu": max(matcher_cpu), "redis_cpu": max(redis_used),
            "matcher_cpus": sorted(matcher_cpu, reverse=True), "redis_cpus": sorted(redis_used, reverse=True)}


def _matched(store: Redis) -> int:
    """Tickets in status matched (scanned per node: on a cluster a SCAN sees one node)."""
    nodes = store.client.get_primaries() if store.cluster else [None]
    n = 0
    for node in nodes:
        client = store.client.get_redis_connection(node) if node else store.client
        keys = list(client.scan_iter(f"{store.keys.prefix}*:t:*", count=5000))
        pipe = client.pipeline(transaction=False)
        for key in keys:
            pipe.hget(key, "status")
        n += sum(1 for s in pipe.execute() if s == "matched")
    return n


def _commands(store: Redis) -> int:
    """Commands every Redis server has run so far (INFO commandstats, the INFO calls themselves left out)."""
    nodes = store.client.get_primaries() if store.cluster else [None]
    total = 0
    for node in nodes:
        stats = (store.client.get_redis_connection(node) if node else store.client).info("commandstats")
        total += sum(int(v["calls"]) for k, v in stats.items() if k != "cmdstat_info")
    return total


def idle(config: Config, matchers: int, seconds: float = 5.0) -> float:
    """Redis commands per second that ``matchers`` matcher processes cost with every queue empty."""
    store = Redis.open(config)
    clear(store)
    with matcher_processes(config, matchers) as (go, _):
        go.set()
        time.sleep(2 * config.lease_seconds / 3)  # two lease upkeeps: the units are divided
        before = _commands(store)
        time.sleep(seconds)
        rate = (_commands(store) - before) / seconds
    clear(store)
    return rate


def scaling(backends: dict[str, LocalRedis], tickets: int, runs: int, counts: list[int], big: int,
            idle_seconds: float = 5.0) -> None:
    print(f"\nscaling: {tickets} queued tickets drained by N matcher processes; {os.cpu_count()} CPUs on this "
          "machine, shared with other work while measuring")
    rates: dict[tuple[str, int], list[float]] = {}
    cpu_rates: dict[tuple[str, int], list[float]] = {}
    for name, server in backends.items():
        config = Config(redis_url=server.url, redis_cluster=server.cluster, key_prefix="mmbench:",
                        log_level="WARNING", create_concurrency=4, lease_seconds=2.0, tick_seconds=0.005)
        for run in range(runs):  # interleaved, so drift in the machine's load hits every count alike
            for n in counts:
                row = drain(config, tickets, n, seed=run)
                assert row["matched"] == tickets, row
                rates.setdefault((name, n), []).append(row["rate"])
                cpu_rates.setdefault((name, n), []).append(row["cpu_rate"])
                print(f"  {name:7} run {run + 1}: {n} matcher(s): {tickets} matched in {row['seconds']:.3f} s = "
                      f"{row['rate']:.0f} tickets/s; CPU of the busiest matcher {row['matcher_cpu']:.2f} s, of the "
                      f"busiest Redis {row['redis_cpu']:.2f} s -> {row['cpu_rate']:.0f} tickets/s with a core each "
                      f"(matchers {' '.join(f'{c:.2f}' for c in row['matcher_cpus'])}; "
                      f"Redis {' '.join(f'{c:.2f}' for c in row['redis_cpus'])})")
    for title, table in (("median tickets matched/s, wall clock", rates),
                         ("median tickets matched/s with a core per process (tickets / CPU s of the busiest)",
                          cpu_rates)):
        print(f"{title} (ratio to one matcher on the same backend):")
        for name in backends:
            one = statistics.median(table[(name, counts[0])])
            cells = []
            for n in counts:
                med = statistics.median(table[(name, n)])
                cells.append(f"{n} matcher(s) {med:.0f}/s ({med / one:.2f}x)")
            print(f"  {name:7}: " + "; ".join(cells))
    if idle_seconds > 0:
        print("idle cost: Redis commands per second with every queue empty (the default tick, 0.2 s)")
    for name, server in backends.items() if idle_seconds > 0 else ():
        config = Config(redis_url=server.url, redis_cluster=server.cluster, key_prefix="mmbench:",
                        log_level="WARNING", create_concurrency=4)
        print(f"  {name:7}: " + "; ".join(f"{n} matcher(s) {idle(config, n, idle_seconds):.0f}/s" for n in counts))
    if big:
        for name, server in backends.items():
            config = Config(redis_url=server.url, redis_cluster=server.cluster, key_prefix="mmbench:",
                            log_level="WARNING", create_concurrency=4, lease_seconds=2.0, tick_seconds=0.005)
            row = drain(config, big, counts[-1], seed=99)
            print(f"  {name:7}: {big} queued tickets all matched by {counts[-1]} matchers in {row['seconds']:.2f} s "
                  f"({row['rate']:.0f}/s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tickets", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--matchers", default="1,2,4")
    parser.add_argument("--backends", default="single,cluster")
    parser.add_argument("--big", type=int, default=100_000, help="then drain this many (0 = skip)")
    parser.add_argument("--idle", type=float, default=5.0,
                        help="seconds to measure the idle matchers' Redis commands over (0 = skip)")
    parser.add_argument("--embedded", action="store_true",
                        help="only the quality part, on in-process fakeredis (no redis-server needed)")
    args = parser.parse_args()
    configure_logging("torres_matchmaking", "WARNING")
    if args.embedded:
        quality(Config(key_prefix="mmbench:", log_level="WARNING", create_concurrency=4), args.tickets, args.runs)
        return
    with tempfile.TemporaryDirectory() as tmp:
        backends: dict[str, LocalRedis] = {}
        try:
            for name in args.backends.split(","):
                (Path(tmp) / name).mkdir()
                backends[name] = LocalRedis(Path(tmp) / name, masters=3 if name == "cluster" else 0)
            first = next(iter(backends.values()))
            quality(Config(redis_url=first.url, redis_cluster=first.cluster, key_prefix="mmbench:",
                           log_level="WARNING", create_concurrency=4), args.tickets, 1)
            scaling(backends, args.tickets, args.runs, [int(n) for n in args.matchers.split(",")], args.big,
                    args.idle)
        finally:
            for server in backends.values():
                server.stop()


if __name__ == "__main__":
    main()
