"""Rules-engine speed: uniformly random legal games from `new_game` to the end, on one core, through the engine's
main API, the integer action codes (`legal_codes` + `apply_code`, as the bots use it), or with `--api wire`
through the wire forms (`legal_actions` + `apply`, as the game service uses it) -- for the compiled (mypyc) and
the pure Python build side by side in one run.

Each measurement runs in a fresh process (the build is chosen when torres_rules is first imported; the pure one
with TORRES_RULES_PURE=1), and the two builds alternate run by run on the same seeds, so machine noise hits
both alike. Prints, per configuration and build, full games and actions per CPU-second of the measuring
process (what one core delivers: time the scheduler gives to others is not counted) as the median of the runs,
games per wall-clock second, the compiled/pure ratio of the medians and the median of the per-run ratios (each
compiled run against the pure run next to it: the steadier figure when the machine's speed drifts).

With `--against DIR` the compiled engine of another checkout (DIR, with its own `make install` done, e.g. a git
worktree of an earlier commit) runs as a third build in the same alternation, and each compiled run is compared
with the run of DIR's next to it: two versions of the engine side by side in one run.
Usage: python bench/rules_bench.py [--runs 5] [--games 20] [--configs 4p,4p-master] [--api codes|wire] [--against DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from engine_builds import add_builds_argument, available_builds, build_env

CONFIGS: dict[str, tuple[str, dict[str, Any]]] = {
    "2p": ("2p rio_grande (personal deck)", dict(players=2, edition="rio_grande")),
    "4p": ("4p rio_grande (personal deck)", dict(players=4, edition="rio_grande")),
    "4p-ravensburger": ("4p ravensburger (common deck)", dict(players=4, edition="ravensburger")),
    "4p-yucata": ("4p yucata", dict(players=4, edition="yucata")),
    "4p-master": ("4p rio_grande master (hand)", dict(players=4, edition="rio_grande", master=True)),
    "2p-master": ("2p rio_grande master (hand)", dict(players=2, edition="rio_grande", master=True)),
}

def play(config: dict[str, Any], seed: int, api: str) -> int:
    import torres_rules as tr

    rng = random.Random(seed)
    state = tr.new_game(seed=seed, **config)
    actions = 0
    if api == "codes":
        while not tr.is_over(state):
            state = tr.apply_code(state, rng.choice(tr.legal_codes(state)))
            actions += 1
    else:
        while not tr.is_over(state):
            state = tr.apply(state, rng.choice(tr.legal_actions(state)))
            actions += 1
    return actions


def worker(config_key: str, games: int, run: int, api: str) -> None:
    """One run in this process: prints the build that loaded and its games/actions per CPU- and wall-second."""
    import torres_rules as tr

    config = CONFIGS[config_key][1]
    play(config, 10**6, api)  # warm the castle caches and lazy tables as a long-running process has them
    wall, cpu = time.perf_counter(), time.process_time()
    actions = sum(play(config, run * 1000 + g, api) for g in range(games))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(json.dumps({"build": tr.ENGINE_BUILD, "gps": games / cpu, "aps": actions / cpu, "wall": games / wall}))


AGAINST = "against"  # the compiled build of the checkout given with --against


def measure(build: str, config_key: str, games: int, run: int, api: str, against: Path | None) -> dict[str, Any]:
    script, env, wanted = Path(__file__), build_env(build), build
    if build == AGAINST:
        assert against is not None
        script, env, wanted = against / "bench" / "rules_bench.py", build_env("compiled"), "compiled"
        env["PYTHONPATH"] = os.pathsep.join([str(against / "shared"), *filter(None, [env.get("PYTHONPATH")])])
    out = subprocess.run([sys.executable, str(script), "--worker", config_key, str(games), str(run), api],
                         env=env, check=True, capture_output=True, text=True).stdout
    result: dict[str, Any] = json.loads(out)
    if result["build"] != wanted:
        raise SystemExit(f"asked for the {wanted} build, got {result['build']} (run `make install` to build it)")
    return result


def per_run_ratio(results: dict[str, list[dict[str, Any]]], a: str, b: str) -> float:
    """The median of a's games/CPU-s over b's, run by run (each pair measured back to back)."""
    return statistics.median(x["gps"] / y["gps"] for x, y in zip(results[a], results[b], strict=True))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--configs", default=",".join(CONFIGS))
    parser.add_argument("--api", choices=("codes", "wire"), default="codes")
    parser.add_argument("--against", type=Path, help="another checkout whose compiled engine runs side by side")
    parser.add_argument("--worker", nargs=4, help=argparse.SUPPRESS)
    add_builds_argument(parser)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker[0], int(args.worker[1]), int(args.worker[2]), args.worker[3])
        return
    builds = available_builds(args.builds)
    if args.against is not None:
        if "compiled" not in builds:
            raise SystemExit("--against compares compiled engines, and this checkout has none")
        builds = (*builds, AGAINST)
    player = "codes (legal_codes + apply_code)" if args.api == "codes" else "wire forms (legal_actions + apply)"
    print(f"median of {args.runs} runs of {args.games} games each per build, builds alternating, one process per run; "
          f"random player on the {player}")
    print(f"{'configuration':32} {'build':8} {'games/cpu-s':>11} {'actions/cpu-s':>13} {'min..max':>13} "
          f"{'games/wall-s':>12} {'ratio':>6}")
    for key in args.configs.split(","):
        name = CONFIGS[key][0]
        results: dict[str, list[dict[str, Any]]] = {build: [] for build in builds}
        for run in range(args.runs):
            for build in builds:
                results[build].append(measure(build, key, args.games, run, args.api, args.against))
        medians = {build: statistics.median(r["gps"] for r in results[build]) for build in builds}
        for build in builds:
            gps = [r["gps"] for r in results[build]]
            ratio = f"{medians['compiled'] / medians['pure']:5.2f}x" if build == "compiled" else ""
            print(f"{name:32} {build:8} {medians[build]:11.1f} "
                  f"{statistics.median(r['aps'] for r in results[build]):13.0f} {min(gps):6.1f}..{max(gps):<6.1f} "
                  f"{statistics.median(r['wall'] for r in results[build]):12.1f} {ratio:>6}", flush=True)
        if "pure" in builds and "compiled" in builds:
            print(f"{'':32} compiled/pure, median of the per-run ratios: "
                  f"{per_run_ratio(results, 'compiled', 'pure'):.2f}x", flush=True)
        if AGAINST in builds:
            print(f"{'':32} compiled/{AGAINST} ({args.against}), median of the per-run ratios: "
                  f"{per_run_ratio(results, 'compiled', AGAINST):.3f}x; {AGAINST}/pure "
                  f"{per_run_ratio(results, AGAINST, 'pure'):.2f}x", flush=True)


if __name__ == "__main__":
    main()
