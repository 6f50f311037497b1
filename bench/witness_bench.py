"""The transparency log with witnesses (docs/performance.md "Witnesses").

Two throwaway PostgreSQL databases, identical but for the witnesses: in "on" the sequencer (every ``--interval``
seconds) asks two real witness processes (``python -m torres_audit witness``, each with its own SQLite state) to
cosign every checkpoint; in "off" it only signs. Each database has its own sequencer process (``python -m
torres_game sequence``, the log key's one holder, as deployed), so the appending process shares nothing with it
but the database. Rounds alternate on/off; each round creates games, appends actions and ends each game.

1. The delay from a game's end to a checkpoint cosigned by both witnesses (the "on" rounds): for each game, its
   leaf's ``queued_at`` (the ``game_ended`` row's time) to the time the second cosignature of the first checkpoint
   that holds it was stored, both read from the database afterwards (``log_leaves``, ``log_cosignatures``): p50 and
   p99. For comparison, the delay from a game's end to the first checkpoint that holds it, on and off.
2. Append throughput with witnesses on against off, side by side: appends/s of each and the median of the
   per-round ratios on/off, with the appending process's CPU seconds per 1000 appends; the sequencers' and the
   witnesses' own CPU, reported apart.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import resource
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg

from torres_audit.cosignature import Cosigner
from torres_audit.note import Signer
from torres_game.store import PostgresEventStore

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from translog_bench import database, drop, round_  # noqa: E402

MIGRATIONS = ROOT / "infra" / "migrations"


def free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def witness(folder: Path, cosigner: Cosigner, log_vkey: str) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "torres_audit", "witness", "--state", str(folder / f"{port}.sqlite3"), "--port",
         str(port), "--log", log_vkey], env={**os.environ, "TORRES_WITNESS_KEY": cosigner.skey()},
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            with urllib.request.urlopen(f"{url}/witness-key", timeout=1):
                break
        except OSError:
            if time.monotonic() > deadline or process.poll() is not None:
                raise RuntimeError("the witness did not start") from None
            time.sleep(0.1)
    try:
        yield url, process
    finally:
        process.terminate()
        process.wait(10)


def tree_cpu(process: subprocess.Popen[bytes] | subprocess.Popen[str]) -> float:
    """User + system CPU seconds of a running process and its children (gunicorn's worker), from /proc."""
    def stat(pid: str) -> list[str]:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()

    total = 0.0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = stat(entry.name)
        except OSError:
            continue
        if entry.name == str(process.pid) or fields[1] == str(process.pid):
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def sequencer(url: str, log: Signer, witnesses: str, interval: float) -> subprocess.Popen[str]:
    """``python -m torres_game sequence``, the log key's one holder, as the deployment runs it."""
    env = {**os.environ, "DATABASE_URL": url, "TORRES_LOG_SIGNING_KEY": log.skey(), "TORRES_LOG_WITNESSES": witnesses,
           "TORRES_LOG_WITNESS_QUORUM": "2" if witnesses else "0", "TORRES_LOG_INTERVAL": str(interval),
           "TORRES_MIGRATIONS_DIR": str(MIGRATIONS), "LOG_LEVEL": "WARNING"}
    process = subprocess.Popen([sys.executable, "-m", "torres_game", "sequence"], env=env, stdout=subprocess.PIPE,
                               text=True)
    assert process.stdout is not None
    for _ in range(100):  # its log lines, then "log sequencer for … every …" once it is about to run ("": it died)
        line = process.stdout.readline()
        if "log sequencer" in line:
            threading.Thread(target=process.stdout.read, daemon=True).start()  # drain the rest
            return process
        if not line:
            break
    process.kill()
    raise RuntimeError("the sequencer did not start")


def delays(url: str, cosigned: bool) -> list[float]:
    """Seconds from each game's end to the first checkpoint that holds it (cosigned by two witnesses, or not)."""
    with psycopg.connect(url) as conn:
        if cosigned:
            rows = conn.execute(
                "WITH done AS (SELECT tree_size, max(created_at) AS at FROM log_cosignatures GROUP BY tree_size"
                " HAVING count(*) >= 2)"
                " SELECT extract(epoch FROM (SELECT min(d.at) FROM done d WHERE d.tree_size > l.leaf_index)"
                " - l.queued_at) FROM log_leaves l WHERE l.leaf_index IS NOT NULL").fetchall()
        else:
            rows = conn.execute("SELECT extract(epoch FROM integrated_at - queued_at) FROM log_leaves"
                                " WHERE leaf_index IS NOT NULL").fetchall()
    return sorted(float(r[0]) for r in rows if r[0] is not None)


def pct(values: list[float], p: float) -> float:
    return values[min(len(values) - 1, int(p * len(values)))] if values else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--games", type=int, default=40, help="games per round")
    parser.add_argument("--actions", type=int, default=10, help="actions per game")
    parser.add_argument("--interval", type=float, default=0.25, help="TORRES_LOG_INTERVAL of the sequencer")
    args = parser.parse_args()

    log = Signer.generate("bench.invalid/log")
    tag = uuid.uuid4().hex[:8]
    names = {"on": f"torres_witness_bench_on_{tag}", "off": f"torres_witness_bench_off_{tag}"}
    urls = {mode: database(name) for mode, name in names.items()}
    folder = Path(f"/tmp/torres-witness-bench-{tag}")
    folder.mkdir()
    try:
        with (witness(folder, Cosigner.generate("bench.invalid/w1"), log.verifier().vkey()) as (w1, p1),
              witness(folder, Cosigner.generate("bench.invalid/w2"), log.verifier().vkey()) as (w2, p2),
              contextlib.ExitStack() as stack):
            keys = {w1: p1, w2: p2}
            stores: dict[str, PostgresEventStore] = {}
            for mode, url in urls.items():
                store = PostgresEventStore(url, migrations_dir=MIGRATIONS)
                store.migrate()
                stores[mode] = store
            vkeys = [urllib.request.urlopen(f"{u}/witness-key", timeout=5).read().decode().strip() for u in keys]
            entries = ",".join(f"{vkey}@{u}" for vkey, u in zip(vkeys, keys, strict=True))
            sequencers: dict[str, subprocess.Popen[str]] = {}

            def stop_sequencers() -> None:
                for process in sequencers.values():
                    process.terminate()
                    process.wait(20)

            stack.callback(stop_sequencers)
            for mode in urls:
                sequencers[mode] = sequencer(urls[mode], log, entries if mode == "on" else "", args.interval)
            rates: dict[str, list[float]] = {"on": [], "off": []}
            cpu: dict[str, float] = {"on": 0.0, "off": 0.0}
            appended: dict[str, int] = {"on": 0, "off": 0}
            witness_cpu = sum(tree_cpu(p) for p in keys.values())
            sequencer_cpu = {mode: tree_cpu(p) for mode, p in sequencers.items()}
            for r in range(args.rounds):
                for mode in (("on", "off") if r % 2 == 0 else ("off", "on")):
                    before = resource.getrusage(resource.RUSAGE_SELF)
                    appends, seconds = round_(stores[mode], args.games, args.actions)
                    after = resource.getrusage(resource.RUSAGE_SELF)
                    cpu[mode] += (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
                    appended[mode] += appends
                    rates[mode].append(appends / seconds)
            vkey_list = list(vkeys)
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and (stores["on"].log_pending() or stores["off"].log_pending()
                                                   or stores["on"].log_cosigned_size(vkey_list, 2)
                                                   != stores["on"].log_checkpoint().tree_size):  # type: ignore[union-attr]
                time.sleep(0.1)
            witness_cpu = sum(tree_cpu(p) for p in keys.values()) - witness_cpu
            sequencer_cpu = {mode: tree_cpu(p) - sequencer_cpu[mode] for mode, p in sequencers.items()}
            cosigned = delays(urls["on"], cosigned=True)
            integrated = {mode: delays(url, cosigned=False) for mode, url in urls.items()}
            for store in stores.values():
                store.close()
    finally:
        for name in names.values():
            drop(name)

    games = args.rounds * args.games  # per mode
    print(f"witness_bench: {args.rounds} rounds x {args.games} games x ({args.actions} actions + create + end), "
          f"sequencer every {args.interval} s, two witnesses on loopback")
    print(f"  game end -> checkpoint cosigned by both witnesses ({len(cosigned)} of {games} games): "
          f"p50 {pct(cosigned, 0.5) * 1000:.0f} ms, p99 {pct(cosigned, 0.99) * 1000:.0f} ms")
    for mode in ("on", "off"):
        values = integrated[mode]
        print(f"  game end -> first signed checkpoint, witnesses {mode}: p50 {pct(values, 0.5) * 1000:.0f} ms, "
              f"p99 {pct(values, 0.99) * 1000:.0f} ms")
    ratios = [a / b for a, b in zip(rates["on"], rates["off"], strict=True)]
    for mode in ("on", "off"):
        print(f"  appends/s, witnesses {mode}: median {statistics.median(rates[mode]):.0f} "
              f"(rounds: {', '.join(f'{x:.0f}' for x in rates[mode])}); "
              f"CPU {cpu[mode] / appended[mode] * 1000:.2f} s per 1000 appends (the appending process); "
              f"its sequencer process {sequencer_cpu[mode]:.2f} s")
    print(f"  median ratio on/off: {statistics.median(ratios):.3f}")
    print(f"  the two witnesses' own CPU: {witness_cpu:.2f} s for {len(cosigned)} games' checkpoints")


if __name__ == "__main__":
    main()
