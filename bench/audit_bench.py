"""Seconds to verify a complete 4-player master game's record offline, median of runs.

The record is made the way the service makes one (its event builders, the store's stamp, the shared fold and
its follow-up rule, ``build_record`` signing the head), from a game of uniformly random legal actions with a
fixed seed, with undos and clocks so every check has work to do. Then ``torres_audit.verify.verify_text`` runs
on the record file's text: JSON parsing, the chain, the signature, the seed, the replay through the rules
engine and the result, everything ``python -m torres_audit verify`` does after reading the file. One run of the
command line itself (a new Python process: imports included) is timed too.

    python bench/audit_bench.py [--runs 9] [--players 4] [--no-master]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

import torres_rules as tr
from torres_audit.chain import GENESIS_HASH
from torres_audit.note import Signer
from torres_audit.verify import verify_text
from torres_game import events as ev
from torres_game.records import build_record
from torres_game.redaction import FULL
from torres_game.store.base import GameSecret, NewEvent, StoredEvent, stamp
from torres_online import lifecycle as lc
from torres_online.events import initial_state
from torres_online.lifecycle import format_time


def make_record(players: int, master: bool, seed: int, signer: Signer) -> dict[str, Any]:
    """A complete game: random legal actions, one in ten taken back when undo allows, a clock that never runs
    out (the deadline checks still run on every move)."""
    rng = random.Random(seed)
    game_seed = rng.getrandbits(128)
    seats = [{"seat": i, "kind": "human", "player_id": f"p{i}"} for i in range(players)]
    online = lc.Settings(turn_seconds=300.0, bank_seconds=3600.0, increment_seconds=10.0)
    log: list[StoredEvent] = []
    state: tr.State | None = None
    life: lc.Lifecycle | None = None
    at = datetime(2026, 1, 1, tzinfo=UTC)

    def append(event: NewEvent) -> None:
        nonlocal state, life
        new = [event]
        for item in new:
            state, life = lc.step(state, life, item.type, item.payload, len(log) + 1, format_time(at),
                                  lambda created: initial_state(created, game_seed))
            due = lc.follow_up(state, life, abandoned=False)
            if due == lc.END:
                new.append(ev.game_ended(state, game_seed, life))
            elif due == lc.PASS:
                new.append(ev.action_applied(state.to_move, lc.pass_action(state), auto="forfeit"))
        log.extend(stamp("bench-game", len(log) + 1, log[-1].hash if log else GENESIS_HASH, new,
                         f"c{len(log) + 1}", at))

    append(ev.game_created(edition="rio_grande", master=master, options={}, seats=seats, seed=game_seed,
                           online=online))
    while state is not None and life is not None and not life.over:
        at += timedelta(seconds=rng.uniform(0.5, 5))
        if life.undo and rng.random() < 0.1:
            append(ev.action_undone(state.to_move, life.undo[-1][0]))
        else:
            append(ev.action_applied(state.to_move, rng.choice(tr.legal_actions(state))))
    return build_record(log, GameSecret(game_seed, [None] * players), FULL, signer)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--no-master", action="store_true")
    parser.add_argument("--seed", type=int, default=28)
    args = parser.parse_args()
    master = not args.no_master
    signer = Signer("bench.invalid/game", Ed25519PrivateKey.from_private_bytes(hashlib.sha256(b"bench").digest()))
    record = make_record(args.players, master, args.seed, signer)
    text = json.dumps(record)
    types: dict[str, int] = {}
    for event in record["events"]:
        types[event["type"]] = types.get(event["type"], 0) + 1
    print(f"record: {args.players} players, rio_grande{' master' if master else ''}, {len(record['events'])} events "
          f"({', '.join(f'{n} {t}' for t, n in sorted(types.items()))}), {len(text) / 1024:.0f} KiB; "
          f"rules engine: {tr.ENGINE_BUILD}")
    keys = [signer.verifier()]
    report = verify_text(text, keys=keys)
    assert report.ok, report.text()
    seconds = []
    for _ in range(args.runs):
        start = time.perf_counter()
        verify_text(text, keys=keys)
        seconds.append(time.perf_counter() - start)
    print(f"verify (in process), {args.runs} runs: median {statistics.median(seconds):.4f} s "
          f"(min {min(seconds):.4f}, max {max(seconds):.4f})")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "record.json"
        path.write_text(text)
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "torres_audit", "verify", str(path), "--key",
                               signer.verifier().vkey()], capture_output=True, text=True, check=False)
        wall = time.perf_counter() - start
    assert done.returncode == 0, done.stdout + done.stderr
    print(f"python -m torres_audit verify (one run, a new process): {wall:.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
