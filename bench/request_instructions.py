"""Instructions per accepted action of the game service, this checkout against another revision.

    .venv/bin/python bench/request_instructions.py                      # against d33f9e6, 300 - 100 actions
    .venv/bin/python bench/request_instructions.py --against REV --actions 400 --warm-up 100 --keep /tmp/cg

Why instructions and not actions per second: the machine is shared, and a wall-clock ratio of two servers moves by
more than the few per cent the trust boundary's target is about (``bench/game_bench.py --against`` needs 12 pairs of
slices and a quiet machine). Instructions counted by ``valgrind --tool=callgrind`` do not depend on the load.

Each side plays two-seat games in one process through Flask's test client exactly as ``bench/game_bench.py``'s
``play_games`` does (create a game with the tenant's key, GET legal-actions when a turn begins, POST actions with
the seat's bearer token), with the settings of ``game_bench.py --against``'s two servers (:func:`game_bench.against`):
this checkout with a tenants file, every rate limit counted in memory (loopback not exempt) and the stream caps on;
the other revision (``git archive``) with its single ``TORRES_API_KEY``, its own service code and migrations and
this environment's rules engine. The game seeds are fixed, so both sides play the same games. Each side runs twice,
``--warm-up`` actions and ``--actions`` actions; the difference divided by the difference of actions is the cost of
one action with start-up, imports and first-call caches cancelled out. ``--keep DIR`` keeps the callgrind files:
``callgrind_annotate --inclusive=yes DIR/this-N.out`` shows where the instructions go.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent


def play(actions: int) -> None:
    """``actions`` accepted actions in this process, as ``game_bench.play_games`` sends them (the settings come
    from the environment the parent set)."""
    import secrets

    secrets.randbits = random.Random(26).getrandbits  # type: ignore[assignment]  # the same games on both sides

    from torres_game.app import create_app

    app = create_app()
    client = app.test_client()
    api_key = os.environ["BENCH_API_KEY"]
    rng = random.Random(4)
    accepted = 0
    while accepted < actions:
        created = client.post("/v1/games", json={"seats": [{"kind": "human"}, {"kind": "human"}]},
                              headers={"X-API-Key": api_key})
        assert created.status_code == 201, created.get_json()
        game = created.get_json()
        gid, tokens = game["game_id"], [s["token"] for s in game["seats"]]
        seat, n, legal = 0, 0, None
        while accepted < actions:
            auth = {"Authorization": f"Bearer {tokens[seat]}"}
            if not legal:
                legal = client.get(f"/v1/games/{gid}/legal-actions", headers=auth).get_json()
                if not legal["actions"]:
                    seat, legal = (seat + 1) % 2, None
                    continue
            body = {"seat": seat, "action": rng.choice(legal["actions"]), "expected_version": legal["version"],
                    "command_id": f"{gid}-{n}"}
            response = client.post(f"/v1/games/{gid}/actions", json=body, headers=auth)
            assert response.status_code == 201, response.get_json()
            result = response.get_json()
            accepted += 1
            n += 1
            if result["events"][-1]["type"] == "game_ended":
                break
            legal = {"version": result["version"], "actions": result["legal_actions"]} \
                if result["legal_actions"] else None
            if legal is None:
                seat = (seat + 1) % 2
    app.extensions["torres_game"].close()


def instructions(env: dict[str, str], actions: int, out: Path) -> int:
    """Instructions callgrind counts for a whole process playing ``actions`` actions."""
    with tempfile.TemporaryDirectory(prefix="torres-instr-") as folder:
        run_env = {**env, "DATABASE_URL": f"sqlite:///{folder}/bench.sqlite3"}
        subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable,
                        str(Path(__file__).resolve()), "--play", str(actions)],
                       env=run_env, check=True, cwd=folder, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    match = re.search(r"^(?:summary|totals): (\d+)", out.read_text(), re.MULTILINE)
    assert match, f"no totals in {out}"
    return int(match.group(1))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--against", default="d33f9e6", help="the revision compared with (default: d33f9e6, "
                        "before tenants, seat-token rows and rate limits)")
    parser.add_argument("--actions", type=int, default=300)
    parser.add_argument("--warm-up", type=int, default=100)
    parser.add_argument("--only", choices=("this", "against"), help="one side only")
    parser.add_argument("--this-rev", metavar="REV", help="the 'this' side runs REV's game service and service kit "
                        "(exported, as --against's), with this side's settings: one commit's figure while the work "
                        "tree moves on")
    parser.add_argument("--plain", action="store_true", help="the 'this' side at its defaults (no tenants file, "
                        "loopback exempt from the limits), as game_bench.py --plain: the two checkouts' own code")
    parser.add_argument("--env-this", action="append", default=[], metavar="KEY=VALUE",
                        help="an environment setting of the 'this' side (repeatable), e.g. TORRES_RATELIMIT_ENABLED=0")
    parser.add_argument("--keep", metavar="DIR", help="keep the callgrind files here")
    parser.add_argument("--play", type=int, help=argparse.SUPPRESS)  # the child process
    args = parser.parse_args()
    if args.play is not None:
        play(args.play)
        return 0

    sys.path.insert(0, str(ROOT))
    from game_bench import API_KEY, against, checkout_of, tenants_document

    base = {**os.environ, "TORRES_API_KEY": API_KEY, "TORRES_ADMIN_KEY": "bench-admin", "LOG_LEVEL": "WARNING",
            "TORRES_AI_DRIVER": "none", "BENCH_API_KEY": API_KEY,
            # No background threads: what they do depends on the (valgrind-slowed) wall clock, not on the requests.
            "TORRES_ENFORCER_INTERVAL": "0", "TORRES_LOG_INTERVAL": "0", "TORRES_WEBHOOK_INTERVAL": "0",
            # One string hash for every run: with random ones, dict probing and set order (which the rules engine's
            # legal actions, and so the games played, follow) vary by 1 % from run to run.
            "PYTHONHASHSEED": "0",
            "TORRES_MIGRATIONS_DIR": str(ROOT.parent / "infra" / "migrations")}
    keep = Path(args.keep or tempfile.mkdtemp(prefix="torres-callgrind-"))
    keep.mkdir(parents=True, exist_ok=True)
    per_action: dict[str, float] = {}
    with checkout_of(args.against) as old, checkout_of(args.this_rev or "HEAD") as new, \
            tempfile.TemporaryDirectory() as folder:
        this_env, old_env = against(old, "", "memory://", tenants_document(folder), plain=args.plain)
        this_env.update(item.split("=", 1) for item in args.env_this)
        old_env.pop("DATABASE_URL")
        if args.this_rev:
            this_env["PYTHONPATH"] = os.pathsep.join(str(new / "services" / part) for part in ("game", "common"))
        sides = {"this": {**base, **this_env}, "against": {**base, **old_env}}
        for side, env in sides.items():
            if args.only not in (None, side):
                continue
            counts = [instructions(env, n, keep / f"{side}-{n}.out") for n in (args.warm_up, args.actions)]
            per_action[side] = (counts[1] - counts[0]) / (args.actions - args.warm_up)
            print(f"{side:<8} {per_action[side]:>12,.0f} instructions per action "
                  f"({counts[0]:,} for {args.warm_up}, {counts[1]:,} for {args.actions})", flush=True)
    if len(per_action) == 2:
        print(f"ratio this / {args.against}: {per_action['this'] / per_action['against']:.4f} "
              f"(difference {per_action['this'] - per_action['against']:,.0f} per action)")
    print(f"callgrind files: {keep}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
