"""Rules-engine work per game in CPU instructions, counted by valgrind's callgrind: a figure that does not drift.

This machine's speed drifts by +-30 % from minute to minute, so games per second (bench/rules_bench.py) cannot
show a 10 % change reliably. Callgrind counts the instructions the interpreter executes, which is the same for
the same code, inputs and hash seed whatever else the machine does. Each configuration is run twice, with 0
and with N random games, so the interpreter's start-up and imports cancel out -- for the compiled (mypyc) and
the pure build (TORRES_RULES_PURE=1), with their ratio.

The random player uses the engine's main API, the integer action codes (`legal_codes` + `apply_code`), or with
`--api wire` the wire forms (`legal_actions` + `apply`).

    python bench/rules_instructions.py [--games 5] [--configs 4p,4p-master] [--api codes|wire]

Needs valgrind on PATH (it is on this project's machines); prints a note and exits 0 without it.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

from engine_builds import add_builds_argument, available_builds, build_env

#: {key: (name, keyword arguments of new_game)}, the keys as bench/rules_bench.py names them.
CONFIGS = {
    "4p": ("4p rio_grande (personal deck)", "dict(players=4, edition='rio_grande')"),
    "4p-master": ("4p rio_grande master (hand)", "dict(players=4, edition='rio_grande', master=True)"),
}

PLAY = """
import random, sys
import torres_rules as tr
assert tr.ENGINE_BUILD == sys.argv[2], f"asked for the {{sys.argv[2]}} build, got {{tr.ENGINE_BUILD}}"
for g in range(int(sys.argv[1])):
    rng = random.Random(g)
    state = tr.new_game(seed=g, **{config})
    while not tr.is_over(state):
        state = {step}
"""
STEP = {
    "codes": "tr.apply_code(state, rng.choice(tr.legal_codes(state)))",
    "wire": "tr.apply(state, rng.choice(tr.legal_actions(state)))",
}


def instructions(config: str, games: int, build: str, api: str) -> int:
    """Instructions callgrind counts for a whole interpreter run that plays `games` games on `build`."""
    env = build_env(build)
    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, "callgrind.out")
        run = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, "-c",
             PLAY.format(config=config, step=STEP[api]), str(games), build],
            capture_output=True, text=True, check=True, env={**env, "PYTHONHASHSEED": "0"},
        )
    found = re.search(r"Collected : (\d+)", run.stderr)
    if not found:
        raise RuntimeError(f"callgrind printed no total:\n{run.stderr[-2000:]}")
    return int(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--configs", default=",".join(CONFIGS))
    parser.add_argument("--api", choices=tuple(STEP), default="codes")
    add_builds_argument(parser)
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        print("valgrind not found: no instruction counts (install valgrind to get them)")
        return
    print(f"callgrind, games 0..{args.games - 1}, PYTHONHASHSEED=0, interpreter start-up subtracted, "
          f"random player: {STEP[args.api]}")
    builds = available_builds(args.builds)
    for key in args.configs.split(","):
        name, config = CONFIGS[key]
        per_game = {build: (instructions(config, args.games, build, args.api)
                            - instructions(config, 0, build, args.api)) / args.games
                    for build in builds}
        figures = ", ".join(f"{build} {per_game[build] / 1e6:6.2f} M" for build in builds)
        ratio = f": pure/compiled {per_game['pure'] / per_game['compiled']:.2f}x" if len(builds) == 2 else ""
        print(f"{name:34} {figures} instructions per game{ratio}", flush=True)


if __name__ == "__main__":
    main()
