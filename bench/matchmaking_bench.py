"""Matchmaking benchmark: 10 000 queued tickets (mixed ratings and player counts) until all are matched.

Measures the matchmaker itself — reading the queues, grouping, the Lua claims and confirmations —
against real Redis (or the embedded fakeredis with ``--embedded``). Game creation is an instant
in-process stand-in here, because the figure of interest is the matcher's own throughput; the
race test exercises the real game service over HTTP.

Tickets were created at random times over the last 60 s (so windows differ) and may be AI-filled
after 30 s. The first pass runs on the real clock; tickets still unmatched after it (no partner
close enough yet) are matched by later passes with the clock fast-forwarded, which in production
would be real waiting. Prints per-run figures and the medians.

    .venv/bin/python bench/matchmaking_bench.py [--tickets 10000] [--runs 5] [--embedded]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
import uuid
from typing import Any

from torres_matchmaking.config import EDITIONS, Config
from torres_matchmaking.game_client import CreatedGame
from torres_matchmaking.matcher import Matcher
from torres_matchmaking.store import Redis
from torres_service.logs import configure_logging

COUNTS = ["2", "3", "4", "2,3", "3,4", "2,3,4"]


class InstantGames:
    """Creates "games" without a game service: ids and seat tokens only."""

    def create_game(
        self, edition: str, master: bool, seats: list[dict[str, Any]], request_key: str | None = None
    ) -> CreatedGame:
        return CreatedGame(uuid.uuid4().hex, [{**s, "seat": i, "token": "t"} for i, s in enumerate(seats)])


class Clock:
    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        return time.time() + self.offset


def clear(store: Redis) -> None:
    keys = list(store.client.scan_iter(f"{store.keys.prefix}*", count=5000))
    for i in range(0, len(keys), 5000):
        store.client.delete(*keys[i:i + 5000])


def enqueue(store: Redis, n: int, rng: random.Random) -> None:
    now = time.time()
    pipe = store.client.pipeline(transaction=False)
    for i in range(n):
        created = now - rng.uniform(0, 60)
        mu = min(50.0, max(0.0, rng.gauss(25, 6)))
        store.scripts.run("enqueue", repr(created), 3600, uuid.uuid4().hex, f"bench{i}", rng.choice(EDITIONS),
                          int(rng.random() < 0.3), rng.choice(COUNTS), repr(mu), "3.0", "30", repr(now + 600), 4000,
                          client=pipe)
    pipe.execute()


def run_once(config: Config, n: int, seed: int) -> dict[str, float]:
    store = Redis.open(config)
    clear(store)
    enqueue(store, n, random.Random(seed))
    clock = Clock()
    matcher = Matcher(store, config, InstantGames(), clock=clock, rng=random.Random(seed))
    spreads: list[float] = []
    humans = ai_games = passes = 0
    started = time.perf_counter()
    first_pass = 0.0
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tickets", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/14")
    parser.add_argument("--embedded", action="store_true", help="in-process fakeredis instead of --redis-url")
    args = parser.parse_args()
    config = Config(redis_url="" if args.embedded else args.redis_url, key_prefix="mmbench:", log_level="WARNING",
                    create_concurrency=4)
    configure_logging("torres_matchmaking", "WARNING")
    backend = "embedded fakeredis" if args.embedded else args.redis_url
    print(f"{args.tickets} tickets, {args.runs} runs, {backend}; window base {config.window_base}, "
          f"+{config.window_growth}/s, max {config.window_max} (openskill mu units)")
    rows = []
    for run in range(args.runs):
        row = run_once(config, args.tickets, seed=run)
        rows.append(row)
        print(f"  run {run + 1}: all matched in {row['total_s']:.3f} s ({row['passes']} passes, "
              f"first pass {row['first_pass_s']:.3f} s matched {row['matched_first_pass']}), "
              f"{row['games']} games ({row['ai_filled_games']} AI-filled), rating spread mean "
              f"{row['mean_spread']:.3f} max {row['max_spread']:.3f}, "
              f"simulated waiting {row['simulated_wait_s']:.0f} s")
    med = {k: statistics.median(r[k] for r in rows) for k in rows[0]}
    print(f"median: all {args.tickets} matched in {med['total_s']:.3f} s (first pass {med['first_pass_s']:.3f} s, "
          f"{med['matched_first_pass']:.0f} matched); {med['games']:.0f} games, "
          f"{med['ai_filled_games']:.0f} AI-filled; spread mean {med['mean_spread']:.3f}, max {med['max_spread']:.3f}")


if __name__ == "__main__":
    main()
