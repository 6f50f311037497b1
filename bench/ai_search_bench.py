"""The hard bot's search speed on the compiled and the pure rules engine, side by side in one run.

The hard level is the `mcts` bot: per turn it spends a third of its wall-clock budget generating candidate
plans, the rest on determinized rollouts (iterations). For the same mid-game positions (2-player Rio Grande,
reached by seeded random play) each build -- a fresh process each, builds alternating -- searches with the
same budget; we print the median iterations per second of budget and the ratio. More iterations in the same
time is what a faster engine buys the bot; its win rate against greedy at equal time comes from
`python -m torres_ai.tournament` (see docs/performance.md).

With `--instructions N` it counts instead, with callgrind, the CPU instructions of one search iteration: each
build searches the same positions with an iteration budget (and no time limit, so the search is the same every
time) of N and of 0 iterations, and the difference divided by the iterations run is the cost of one iteration,
a figure this shared machine's load does not move.

Usage: python bench/ai_search_bench.py [--positions 8] [--seconds 1.0] [--runs 3] [--instructions 20]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from engine_builds import add_builds_argument, available_builds, build_env


def positions(count: int) -> list[object]:
    import torres_rules as tr

    out = []
    for seed in range(count):
        rng = random.Random(seed)
        state = tr.new_game(2, seed=seed)
        steps = 0
        while not (steps >= 40 + 10 * seed and state.stage == "turn" and state.ap_spent == 0):
            state = tr.apply(state, rng.choice(tr.legal_actions(state)))
            steps += 1
        out.append(state)
    return out


def worker(count: int, seconds: float, run: int) -> None:
    import torres_rules as tr
    from torres_ai.bots import Budget, MctsBot

    rates = []
    for index, state in enumerate(positions(count)):
        assert isinstance(state, tr.State)
        seat = state.to_move
        bot = MctsBot()
        budget = Budget(iterations=10**9, seconds=seconds)
        started = time.perf_counter()
        bot.plan_turn(tr.view(state, seat), state, random.Random(run * 100 + index), budget, budget.deadline())
        rates.append(bot.last_iterations / (time.perf_counter() - started))
    print(json.dumps({"build": getattr(tr, "ENGINE_BUILD", "main (no build choice)"), "rates": rates}))


def count_worker(count: int, iterations: int) -> None:
    """Search every position with an iteration budget and no time limit; print the iterations run."""
    import torres_rules as tr
    from torres_ai.bots import Budget, MctsBot

    total = 0
    for index, state in enumerate(positions(count)):
        assert isinstance(state, tr.State)
        bot = MctsBot()
        budget = Budget(iterations=iterations, seconds=10.0**6)
        bot.plan_turn(tr.view(state, state.to_move), state, random.Random(index), budget, budget.deadline())
        total += bot.last_iterations
    print(json.dumps({"build": getattr(tr, "ENGINE_BUILD", "main (no build choice)"), "iterations": total}))


def instructions(build: str, count: int, iterations: int) -> tuple[int, int]:
    """(instructions callgrind counts, iterations run) of a count_worker process."""
    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, "callgrind.out")
        run = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, __file__,
                              "--count-worker", str(count), str(iterations)], capture_output=True, text=True,
                             check=True, env={**build_env(build), "PYTHONHASHSEED": "0"})
    found = re.search(r"Collected : (\d+)", run.stderr)
    if not found:
        raise RuntimeError(f"callgrind printed no total:\n{run.stderr[-2000:]}")
    result = json.loads(run.stdout)
    if result["build"] != build:
        raise SystemExit(f"asked for the {build} build, got {result['build']} (run `make install`)")
    return int(found.group(1)), int(result["iterations"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--instructions", type=int, default=None, metavar="N",
                        help="count instructions per iteration with callgrind (N iterations per position)")
    parser.add_argument("--worker", nargs=3, help=argparse.SUPPRESS)
    parser.add_argument("--count-worker", nargs=2, help=argparse.SUPPRESS)
    add_builds_argument(parser)
    args = parser.parse_args()
    if args.worker:
        worker(int(args.worker[0]), float(args.worker[1]), int(args.worker[2]))
        return
    if args.count_worker:
        count_worker(int(args.count_worker[0]), int(args.count_worker[1]))
        return
    builds = available_builds(args.builds)
    if args.instructions is not None:
        if shutil.which("valgrind") is None:
            print("valgrind not found: no instruction counts (install valgrind to get them)")
            return
        print(f"mcts (hard) search, {args.positions} positions, {args.instructions} iterations each, callgrind, "
              f"PYTHONHASHSEED=0: instructions per iteration (the same searches with 0 iterations subtracted)")
        for build in builds:
            full, iterations = instructions(build, args.positions, args.instructions)
            base, _ = instructions(build, args.positions, 0)
            print(f"{build:8} {(full - base) / iterations / 1e6:8.2f} M instructions per iteration "
                  f"({iterations} iterations)", flush=True)
        return
    rates: dict[str, list[float]] = {build: [] for build in builds}
    for run in range(args.runs):
        for build in builds:
            out = subprocess.run([sys.executable, __file__, "--worker", str(args.positions), str(args.seconds),
                                  str(run)], env=build_env(build), check=True, capture_output=True, text=True).stdout
            result = json.loads(out)
            if result["build"] != build:
                raise SystemExit(f"asked for the {build} build, got {result['build']} (run `make install`)")
            rates[build] += result["rates"]
    medians = {build: statistics.median(rates[build]) for build in builds}
    print(f"mcts (hard) search, {args.positions} positions x {args.runs} runs, {args.seconds} s budget each")
    for build in builds:
        print(f"{build:8} {medians[build]:8.1f} iterations/s (median; min {min(rates[build]):.1f}, "
              f"max {max(rates[build]):.1f})")
    if len(builds) == 2 and medians["pure"] > 0:
        print(f"compiled/pure {medians['compiled'] / medians['pure']:.2f}x")


if __name__ == "__main__":
    main()
