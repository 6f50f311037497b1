"""Rules-engine speed: uniformly random legal games from `new_game` to the end, on one core, through the public
API (`legal_actions` + `apply`), as the service and bots use it.

Prints, per configuration, full games per second and actions per second as the median of several runs.
Usage: python bench/rules_bench.py [--runs 5] [--games 20]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import torres_rules as tr

CONFIGS = [
    ("2p rio_grande (personal deck)", dict(players=2, edition="rio_grande")),
    ("4p rio_grande (personal deck)", dict(players=4, edition="rio_grande")),
    ("4p ravensburger (common deck)", dict(players=4, edition="ravensburger")),
    ("4p yucata", dict(players=4, edition="yucata")),
    ("4p rio_grande master (hand)", dict(players=4, edition="rio_grande", master=True)),
    ("2p rio_grande master (hand)", dict(players=2, edition="rio_grande", master=True)),
]


def play(config: dict, seed: int) -> int:
    rng = random.Random(seed)
    state = tr.new_game(seed=seed, **config)
    actions = 0
    while not tr.is_over(state):
        state = tr.apply(state, rng.choice(tr.legal_actions(state)))
        actions += 1
    return actions


def measure(config: dict, games: int, run: int) -> tuple[float, float]:
    start = time.perf_counter()
    actions = sum(play(config, seed=run * 1000 + g) for g in range(games))
    elapsed = time.perf_counter() - start
    return games / elapsed, actions / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--games", type=int, default=20)
    args = parser.parse_args()
    print(f"{'configuration':34} {'games/s':>9} {'actions/s':>10} {'min..max games/s':>18}")
    for name, config in CONFIGS:
        results = [measure(config, args.games, run) for run in range(args.runs)]
        gps = [g for g, _ in results]
        aps = [a for _, a in results]
        print(f"{name:34} {statistics.median(gps):9.1f} {statistics.median(aps):10.0f} "
              f"{min(gps):8.1f}..{max(gps):<8.1f}")


if __name__ == "__main__":
    main()
