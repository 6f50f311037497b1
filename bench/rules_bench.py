"""Rules-engine speed: uniformly random legal games from `new_game` to the end, on one core, through the public
API (`legal_actions` + `apply`), as the service and bots use it.

Prints, per configuration, full games per second and actions per second as the median of several runs, both
per CPU-second of this process (what one core delivers: time the scheduler or the hypervisor gives to others is
not counted) and per wall-clock second (what it delivered in this run, noise included).
Usage: python bench/rules_bench.py [--runs 7] [--games 20]
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


def measure(config: dict, games: int, run: int) -> tuple[float, float, float]:
    """(games per CPU-second, actions per CPU-second, games per wall-clock second) of one run."""
    wall, cpu = time.perf_counter(), time.process_time()
    actions = sum(play(config, seed=run * 1000 + g) for g in range(games))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return games / cpu, actions / cpu, games / wall


def copy_and_hash_cost(samples: int = 20000) -> tuple[float, float]:
    """Microseconds to copy a mid-game state (what `apply` does first) and to hash a state never hashed before
    (search code keys tables by state)."""
    rng = random.Random(1)
    state = tr.new_game(4, seed=1)
    for _ in range(120):
        state = tr.apply(state, rng.choice(tr.legal_actions(state)))
    copies = [state._copy() for _ in range(samples)]  # fresh objects: no cached hash
    start = time.perf_counter()
    for _ in range(samples):
        state._copy()
    copy_us = (time.perf_counter() - start) / samples * 1e6
    start = time.perf_counter()
    for s in copies:
        hash(s)
    hash_us = (time.perf_counter() - start) / samples * 1e6
    return copy_us, hash_us


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--games", type=int, default=20)
    args = parser.parse_args()
    print(f"median of {args.runs} runs of {args.games} games each")
    print(f"{'configuration':34} {'games/cpu-s':>11} {'actions/cpu-s':>13} {'min..max':>13} {'games/wall-s':>12}")
    for name, config in CONFIGS:
        results = [measure(config, args.games, run) for run in range(args.runs)]
        gps = [g for g, _, _ in results]
        print(f"{name:34} {statistics.median(gps):11.1f} {statistics.median(a for _, a, _ in results):13.0f} "
              f"{min(gps):6.1f}..{max(gps):<6.1f} {statistics.median(w for _, _, w in results):12.1f}")
    copy_us, hash_us = copy_and_hash_cost()
    print(f"state copy {copy_us:.2f} us, first hash of a state {hash_us:.2f} us (mid-game, 4 players)")


if __name__ == "__main__":
    main()
