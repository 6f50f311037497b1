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
    copy_us, hash_us = copy_and_hash_cost()
    print(f"state copy {copy_us:.2f} us, first hash of a state {hash_us:.2f} us (mid-game, 4 players)")


if __name__ == "__main__":
    main()
