"""Writes that scale: appends per second with 1 to 128 concurrent writers, the append that notifies
inside its transaction (today's design up to migration 0012) against the notice sent after the commit (0013),
side by side in one run; then the same through HTTP with the production server.

    .venv/bin/python bench/write_bench.py                       # store: 1,8,32,64,128 writers x 5 rounds; HTTP
    .venv/bin/python bench/write_bench.py --only store --writers 1,64 --rounds 3
    .venv/bin/python bench/write_bench.py --rounds 1 --writers 1,2 --slice-seconds 0.5 --http-pairs 1 \\
        --http-games 2 --http-seconds 1                         # smoke (tests/test_benchmarks.py)

**Store.** Two throwaway databases on the one PostgreSQL server (``TEST_DATABASE_URL``, ``synchronous_commit``
on, as checked and printed): *before*, migrated up to 0012, whose trigger (0004) notifies ``torres_games`` inside
every append's transaction, so every appending commit of the instance takes the notify lock through its WAL
flush; *after*, migrated to the end, whose appends notify nobody and whose store sends each notice after the
commit (``PgNotifier``). The store code is this checkout's in both; *before* only skips the after-commit notice
(its trigger sends it). Each variant gets 128 games; ``--processes`` writer processes own a quarter of them each
(Python's lock would otherwise cap the client, not the database) and run N writers in all, one thread per game,
each appending one ``action_applied`` event (about 200 bytes, as ``game_bench.py``'s append loop) to its own game
as fast as the store answers, through pools of ``--connections`` in all (64: a connection per writer up to 64, as
four game replicas' pools of 16 hold; with 32, half of 64 writers waited for a connection in their process's pool,
a client's cost, not the database's; the server allows 100). A slice runs one variant at one N for
``--slice-seconds`` after half a second of warm-up (longer, up to its first append, on a machine that gave it no
time: a rate of zero is no measurement), with its pools opened before and closed after; rounds alternate
the order of the variants (ABBA), and the figure is the median over rounds, with the median of the rounds' ratios
after / before. Every notice of the *after* slices is accounted for: sent by the notifier, or the figure is void.

**HTTP.** ``game_bench.compare_worker_classes``: two gunicorn servers in the production configuration, this
checkout and ``--against`` (default: the commit before migration 0013, exported with ``git archive``, on its own
database and migrations), the HTTP benchmark's game-playing clients moved between them in ABBA slices.

Prints the machine's load average before and after, and the CPU count: a shared machine's other work counts.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import psycopg
from game_bench import (  # the helpers the HTTP benchmarks share (bench/ is on sys.path when run)
    GIVE_UP,
    MIGRATIONS,
    ROOT,
    against,
    checkout_of,
    compare_worker_classes,
    cpu_seconds,
    postgres_pids,
    report,
    throwaway_database,
)

from torres_game.store import PostgresEventStore
from torres_game.store.base import AppendOptions, GameRecord, GameSecret, NewEvent

VARIANTS = ("before", "after")
SUMMARY = {"stage": "turn", "phase": 1, "round": 1, "to_move": 0, "scores": [0, 0], "winner": None}
EVENT = NewEvent("action_applied", {"seat": 0, "action": {"type": "move_knight", "from": "C3", "to": "C4"}})
OPTIONS = AppendOptions(fingerprint="f", summary=SUMMARY)
NOTICES_AFTER_COMMIT = "0013_notices_after_commit.sql"


class NotifyingInTransaction(PostgresEventStore):
    """Today's design up to migration 0012: the trigger on the games row notifies inside the append's transaction,
    so the store sends nothing after the commit."""

    def _announce(self, game_id: str, version: int, status: str, summary: dict[str, Any] | None) -> None:
        pass


def migrations_before(folder: Path) -> Path:
    """A copy of the migrations without 0013 and later, with the definitions (torres_append, which does not notify
    itself: 0004's trigger on the games row does): the schema of today's design."""
    (folder / "postgres" / "definitions").mkdir(parents=True)
    (folder / "sqlite").mkdir()
    for path in sorted((MIGRATIONS / "postgres").glob("*.sql")):
        if path.name < NOTICES_AFTER_COMMIT:
            (folder / "postgres" / path.name).write_bytes(path.read_bytes())
    for path in sorted((MIGRATIONS / "postgres" / "definitions").glob("*.sql")):
        (folder / "postgres" / "definitions" / path.name).write_bytes(path.read_bytes())
    return folder


def new_games(url: str, count: int) -> list[str]:
    store = NotifyingInTransaction(url, min_size=1, max_size=1)
    try:
        ids = [f"w-{uuid.uuid4().hex[:16]}" for _ in range(count)]
        for game_id in ids:
            record = GameRecord(game_id, "", "rio_grande", False, {}, [{"seat": 0, "kind": "human"}],
                                summary=SUMMARY)
            store.create_game(record, GameSecret(1, [None]), [NewEvent("game_created", {})], f"create:{game_id}")
        return ids
    finally:
        store.close()


def run_slice(store: PostgresEventStore, versions: dict[str, int], mine: list[str], start_at: float,
              seconds: float) -> tuple[int, float]:
    """One thread per game of ``mine``, appending as fast as the store answers from ``start_at`` on; returns the
    appends completed within the measured window and the window's length. The window opens after half a second
    of warm-up and lasts ``seconds``; on a machine that gave the writers no time in it, it lasts until its first
    append (at most :data:`GIVE_UP` s more), so that a slice measures a rate rather than a void zero."""
    counts = [0] * len(mine)
    opens, closes = start_at + 0.5, start_at + 0.5 + seconds
    last = [closes]

    def write(i: int, game_id: str) -> None:
        time.sleep(max(0.0, start_at - time.time()))
        while (now := time.time()) < closes or (not any(counts) and now < closes + GIVE_UP):
            version = versions[game_id]
            store.append(game_id, version, [EVENT], f"w{version}", OPTIONS)
            versions[game_id] = version + 1
            done = time.time()
            if opens <= done and (done <= closes or not any(counts)):
                counts[i] += 1
                last[0] = max(last[0], done)

    threads = [threading.Thread(target=write, args=(i, g)) for i, g in enumerate(mine)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sum(counts), last[0] - opens


def writer_process(urls: dict[str, str], games: dict[str, list[str]], pipe: Connection) -> None:
    """One writer process: owns ``games`` of each variant, runs the slices the main process sends it and answers
    (appends per second in the measured window, appends in all, notices sent, whether the notifier emptied its
    queue)."""
    versions = {variant: dict.fromkeys(ids, 1) for variant, ids in games.items()}
    while (order := pipe.recv()) is not None:
        variant, writers, connections, seconds = order
        kind = NotifyingInTransaction if variant == "before" else PostgresEventStore
        store = kind(urls[variant], min_size=connections, max_size=connections)
        store.pool.wait(30)
        pipe.send("ready")
        start_at = pipe.recv()
        mine = games[variant][:writers]
        first = sum(versions[variant][g] for g in mine)
        counted, window = run_slice(store, versions[variant], mine, start_at, seconds)
        appended = sum(versions[variant][g] for g in mine) - first
        flushed = store.notifier.flush(30)
        pipe.send((counted / window, appended, store.notifier.sent, flushed))
        pipe.recv()  # the main process has read the backends' CPU: their connections may close now
        store.close()


def wal_position(url: str) -> int:
    """The server's WAL insert position in bytes (the same for every database of the server)."""
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute("SELECT pg_current_wal_insert_lsn() - '0/0'::pg_lsn").fetchone()
    return int(row[0]) if row else 0


def split(total: int, parts: int) -> list[int]:
    return [total // parts + (i < total % parts) for i in range(parts)]


def bench_store(admin_prefix: str, writer_counts: list[int], rounds: int, seconds: float, processes: int,
                connections: int) -> None:
    with tempfile.TemporaryDirectory() as folder, throwaway_database(f"{admin_prefix}_before") as before_url, \
            throwaway_database(f"{admin_prefix}_after") as after_url:
        urls = {"before": before_url, "after": after_url}
        for variant, dirs in (("before", migrations_before(Path(folder))), ("after", MIGRATIONS)):
            store = PostgresEventStore(urls[variant], min_size=1, max_size=1, migrations_dir=dirs)
            store.migrate()
            store.close()
        found = {}
        for variant in VARIANTS:
            with psycopg.connect(urls[variant], autocommit=True) as conn:
                setting = conn.execute("SHOW synchronous_commit").fetchone()
                row = conn.execute("SELECT count(*) FROM pg_trigger WHERE tgname = 'games_notify_version'").fetchone()
                found[variant] = f"synchronous_commit {setting and setting[0]}, notify trigger {row and row[0]}"
        print(f"# before: {found['before']}; after: {found['after']}")
        most = max(writer_counts)
        ids = {variant: new_games(urls[variant], most) for variant in VARIANTS}
        per = split(most, processes)
        offsets = [sum(per[:i]) for i in range(processes)]
        context = mp.get_context("spawn")
        pipes, procs = [], []
        for p in range(processes):
            mine = {v: ids[v][offsets[p]:offsets[p] + per[p]] for v in VARIANTS}
            parent, child = context.Pipe()
            proc = context.Process(target=writer_process, args=(urls, mine, child), daemon=True)
            proc.start()
            pipes.append(parent)
            procs.append(proc)
        rates: dict[tuple[str, int], list[float]] = {(v, n): [] for v in VARIANTS for n in writer_counts}
        costs: dict[tuple[str, int], list[tuple[float, float]]] = {key: [] for key in rates}  # (CPU ms, WAL B)
        ratios: dict[int, list[float]] = {n: [] for n in writer_counts}
        try:
            for r in range(rounds):
                for n in writer_counts:
                    order = VARIANTS if (r + writer_counts.index(n)) % 2 == 0 else VARIANTS[::-1]
                    for variant in order:
                        shares = split(n, processes)
                        pools = split(min(n, connections), processes)
                        busy = [(pipe, w, c) for pipe, w, c in zip(pipes, shares, pools, strict=True) if w]
                        for pipe, w, c in busy:
                            pipe.send((variant, w, max(1, c), seconds))
                        for pipe, _, _ in busy:
                            assert pipe.recv() == "ready"
                        start_at = time.time() + 0.2
                        for pipe, _, _ in busy:
                            pipe.send(start_at)
                        cpu, wal = cpu_seconds(postgres_pids()), wal_position(urls[variant])
                        results = [pipe.recv() for pipe, _, _ in busy]
                        cpu, wal = cpu_seconds(postgres_pids()) - cpu, wal_position(urls[variant]) - wal
                        for pipe, _, _ in busy:
                            pipe.send("close")
                        slice_appends = max(1, sum(x[1] for x in results))
                        costs[(variant, n)].append((cpu / slice_appends * 1e3, wal / slice_appends))
                        rate = sum(x[0] for x in results)
                        if not rate:
                            raise SystemExit(f"{variant}: no append in {seconds + GIVE_UP} s: the comparison is void")
                        if variant == "after":
                            appended, sent = sum(x[1] for x in results), sum(x[2] for x in results)
                            if appended != sent or not all(x[3] for x in results):
                                raise RuntimeError(f"{appended} appends, {sent} notices sent: a notice is missing")
                        rates[(variant, n)].append(rate)
                    ratios[n].append(rates[("after", n)][-1] / rates[("before", n)][-1])
                    print(f"round {r + 1}, {n:>3} writers: before {rates[('before', n)][-1]:8.1f}, after "
                          f"{rates[('after', n)][-1]:8.1f} appends/s, ratio {ratios[n][-1]:.2f}", flush=True)
        finally:
            for pipe in pipes:
                pipe.send(None)
            for proc in procs:
                proc.join(30)
        for n in writer_counts:
            target = "(target >= 1.5)" if n == 64 else "(target >= 1.0)" if n == 1 else ""
            report(f"appends/s, {n} writers: notify in the transaction (<= 0012)",
                   statistics.median(rates[("before", n)]), "appends/s")
            report(f"appends/s, {n} writers: notice after the commit (0013)",
                   statistics.median(rates[("after", n)]), "appends/s")
            report(f"ratio after / before, {n} writers, median of the rounds", statistics.median(ratios[n]), "x",
                   target)
        for variant in VARIANTS:
            spent = [c for n in writer_counts for c in costs[(variant, n)]]
            report(f"PostgreSQL CPU per append, {variant} (all backends, median)",
                   statistics.median(c[0] for c in spent), "ms")
            report(f"WAL per append, {variant} (median)", statistics.median(c[1] for c in spent), "bytes")


def commit_before_notices() -> str:
    """The commit before the one that added migration 0013: today's design, for the HTTP comparison."""
    added = subprocess.run(["git", "-C", str(ROOT), "log", "--format=%H", "--diff-filter=A", "-1", "--",
                            f"infra/migrations/postgres/{NOTICES_AFTER_COMMIT}"],
                           capture_output=True, text=True, check=True).stdout.strip()
    return f"{added}^" if added else "HEAD"


def bench_http(rev: str, pairs: int, seconds: float, games: int, workers: int) -> None:
    with throwaway_database("torres_write_bench_http") as url, checkout_of(rev) as old, \
            throwaway_database("torres_write_bench_http_old") as old_url, tempfile.TemporaryDirectory() as folder:
        store = PostgresEventStore(url, min_size=1, max_size=1, migrations_dir=MIGRATIONS)
        store.migrate()
        store.close()
        envs = against(old, old_url, "memory://", str(Path(folder) / "unused.json"), plain=True)
        ratio = compare_worker_classes(url, pairs, seconds, games, workers, 8, ("gevent", "gevent"), envs,
                                       (ROOT, old))
    report(f"ratio notice after the commit / {rev} (HTTP actions/s), median of the pairs", ratio, "x")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", choices=("store", "http"))
    parser.add_argument("--writers", default="1,8,32,64,128", help="comma list of concurrent writers")
    parser.add_argument("--rounds", type=int, default=5, help="slices per variant and writer count")
    parser.add_argument("--slice-seconds", type=float, default=3.0, help="measured seconds of one store slice")
    parser.add_argument("--processes", type=int, default=4, help="writer processes")
    parser.add_argument("--connections", type=int, default=64,
                        help="database connections of the writers in all (a pool per process)")
    parser.add_argument("--against", help="HTTP: the revision compared with this checkout (default: the commit "
                                          "before migration 0013)")
    parser.add_argument("--http-pairs", type=int, default=6)
    parser.add_argument("--http-seconds", type=float, default=5.0)
    parser.add_argument("--http-games", type=int, default=32, help="HTTP: concurrent clients, each playing games")
    parser.add_argument("--workers", type=int, default=2, help="HTTP: gunicorn workers per server")
    args = parser.parse_args()
    writer_counts = [int(x) for x in args.writers.split(",")]
    print(f"# {os.cpu_count()} CPUs, load average before the run: "
          f"{', '.join(f'{x:.2f}' for x in os.getloadavg())} (a shared machine: other loads count)")
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    print(f"# {' '.join([Path(sys.argv[0]).name, *sys.argv[1:]])}; {started}")
    print(f"{'figure':<58} {'value':>10} unit       target")
    if args.only in (None, "store"):
        bench_store("torres_write_bench", writer_counts, args.rounds, args.slice_seconds, args.processes,
                    args.connections)
    print(f"# load average after the store run: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if args.only in (None, "http"):
        bench_http(args.against or commit_before_notices(), args.http_pairs, args.http_seconds, args.http_games,
                   args.workers)
        print(f"# load average after the HTTP run: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
