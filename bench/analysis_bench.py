"""CPU per analysed game, at each depth of the post-game analysis (``torres_ai.analysis``).

Plays ``--games`` games per player count in memory (seats alternately the ``medium`` level, greedy turn plans, and
the ``easy`` one, random moves: games of a realistic length, with mistakes for the analysis to compare against a
better turn, its costly part), then analyses each at every depth in this process, one unit of work per slice (as a
worker with ``TORRES_AI_ANALYSIS_SLICE=0`` does), timing CPU (``time.process_time``), not wall time: the machine is
shared, and CPU is what a worker spends. Prints, per depth and player count, the median and the maximum CPU seconds
per game and per analysed turn, the turns marked, and the longest units of work (99th percentile and maximum over
the games' units): what a human's AI turn may wait for behind an analysis.

Usage: python bench/analysis_bench.py [--games 3] [--players 2,3,4] [--depths quick,deep]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import torres_rules as tr
from torres_ai.analysis import DEPTHS, ENGINE_VERSION, Game, Step, run, turns_of
from torres_ai.bots import Budget, make_bot


def play(seed: int, players: int) -> list[Step]:
    """A game of ``players`` seats, greedy and random in turn, as the analysis reads it (its effective actions)."""
    state = tr.new_game(players=players, seed=seed, edition="rio_grande", master=False)
    bots = [make_bot("greedy" if seat % 2 == 0 else "random") for seat in range(players)]
    steps: list[Step] = []
    version = 1
    while not tr.is_over(state):
        seat = state.to_move
        assert seat is not None
        action = bots[seat].decide(tr.view(state, seat), random.Random(version), Budget(1, 30.0))
        after = tr.apply(state, action)
        version += 1
        steps.append(Step(version, seat, action, state, after))
        state = after
    return steps


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=3, help="games per player count")
    parser.add_argument("--players", default="2,3,4")
    parser.add_argument("--depths", default="quick,deep")
    args = parser.parse_args()
    counts = [int(p) for p in args.players.split(",")]
    games = {p: [play(1000 * p + g, p) for g in range(args.games)] for p in counts}
    print(f"analysis engine {ENGINE_VERSION}, {args.games} games per player count (seats medium and easy in turn), "
          f"engine build {tr.ENGINE_BUILD}")
    print(f"{'depth':<7}{'players':>8}{'turns':>7}{'CPU s/game median':>19}{'max':>8}{'CPU ms/turn':>13}"
          f"{'marked':>8}{'units':>7}{'unit ms p99':>13}{'max':>7}")
    for name in args.depths.split(","):
        depth = DEPTHS[name]
        for players in counts:
            cpu, turns, marked, units = [], [], [], []
            for index, steps in enumerate(games[players]):
                game = Game(f"bench-{players}-{index}", depth, steps, turns_of(steps))
                progress: list[dict] = []
                result = None
                spent = 0.0
                while result is None:
                    started = time.process_time()
                    progress, result = run(game, progress, 0.0)
                    units.append(time.process_time() - started)
                    spent += units[-1]
                cpu.append(spent)
                turns.append(len(result["turns"]))
                marked.append(len(result["marked"]))
            units.sort()
            p99 = units[min(len(units) - 1, round(0.99 * (len(units) - 1)))] * 1000
            per_turn = statistics.median(c / t for c, t in zip(cpu, turns, strict=True)) * 1000
            print(f"{name:<7}{players:>8}{statistics.median(turns):>7.0f}{statistics.median(cpu):>19.2f}"
                  f"{max(cpu):>8.2f}{per_turn:>13.0f}{statistics.median(marked):>8.0f}{len(units):>7}{p99:>13.0f}"
                  f"{units[-1] * 1000:>7.0f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
