"""The transparency log's cost and speed (docs/performance.md "Transparency log").

1. Appends with the log on vs off, side by side in one run: two throwaway PostgreSQL databases, identical but for
   the ``events_log_leaf`` trigger (disabled in "off"); "on" also runs the sequencer thread, as a service process
   does. Rounds alternate on/off; each round creates games, appends actions and ends each game (so every game
   queues one leaf). Reported: appends/s of each, and the median of the per-round ratios on/off.
2. The sequencer: leaves integrated per second (one batch of ``--leaves`` queued heads, integrate_all), and the
   p99 delay from a game's end (its leaf's queued_at) to its integration, over the "on" rounds of part 1.
3. Proofs at 10^6 leaves, simulated in memory: ``merkle.append_leaves`` builds the complete subtrees of a tree of
   ``--proof-leaves`` random leaf hashes (what the log stores), then inclusion and consistency proofs are taken
   through ``merkle.inclusion_path``/``consistency_path`` from that node map, and verified: sizes in bytes and
   median times (the database lookups of the node rows are not included: one indexed query per proof).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import threading
import time
import uuid
from pathlib import Path

import psycopg

from torres_audit import merkle
from torres_audit.note import Signer
from torres_game.store import PostgresEventStore
from torres_game.store.base import GameRecord, GameSecret, NewEvent
from torres_game.translog import TransparencyLog

ROOT = Path(__file__).resolve().parents[1]
ADMIN = os.environ.get("TEST_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/postgres")


def database(name: str) -> str:
    with psycopg.connect(ADMIN, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return f"{ADMIN.rpartition('/')[0]}/{name}"


def drop(name: str) -> None:
    with psycopg.connect(ADMIN, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def round_(store: PostgresEventStore, games: int, actions: int) -> tuple[int, float]:
    """Create ``games`` games, append ``actions`` single-event actions and a game_ended to each; (appends, s)."""
    start, appends = time.perf_counter(), 0
    for _ in range(games):
        gid = str(uuid.uuid4())
        store.create_game(GameRecord(gid, "", "rio_grande", False, {}, [{"seat": 0, "kind": "human"}]),
                          GameSecret(7, [None]), [NewEvent("game_created", {})], f"c:{gid}")
        for v in range(1, actions + 1):
            store.append(gid, v, [NewEvent("action_applied", {"seat": 0, "i": v})], f"a:{gid}:{v}")
        store.append(gid, actions + 1, [NewEvent("game_ended", {"scores": [0]})], f"e:{gid}")
        appends += actions + 2
    return appends, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--games", type=int, default=40, help="games per round")
    parser.add_argument("--actions", type=int, default=20, help="actions per game")
    parser.add_argument("--leaves", type=int, default=20000, help="queued heads for the sequencer's throughput")
    parser.add_argument("--proof-leaves", type=int, default=1_000_000)
    args = parser.parse_args()
    tag = f"{os.getpid()}_{uuid.uuid4().hex[:6]}"
    names = {"on": f"translog_bench_on_{tag}", "off": f"translog_bench_off_{tag}"}
    signer = Signer.generate("bench.invalid/log")
    stores: dict[str, PostgresEventStore] = {}
    try:
        for kind, name in names.items():
            stores[kind] = PostgresEventStore(database(name), migrations_dir=ROOT / "infra" / "migrations")
            stores[kind].migrate()
        with stores["off"].pool.connection() as conn:
            conn.execute("ALTER TABLE events DISABLE TRIGGER events_log_leaf")
        log = TransparencyLog(stores["on"], signer)
        stop = threading.Event()
        sequencer = threading.Thread(target=log.run, args=(stop, 0.25), daemon=True)
        sequencer.start()
        rates: dict[str, list[float]] = {"on": [], "off": []}
        ratios = []
        for r in range(args.rounds):
            order = ("on", "off") if r % 2 == 0 else ("off", "on")
            got = {}
            for kind in order:
                n, seconds = round_(stores[kind], args.games, args.actions)
                got[kind] = n / seconds
                rates[kind].append(got[kind])
            ratios.append(got["on"] / got["off"])
        time.sleep(1.5)
        stop.set()
        sequencer.join()
        with stores["on"].pool.connection() as conn:
            delays = [row[0] for row in conn.execute(
                "SELECT extract(epoch FROM integrated_at - queued_at) FROM log_leaves WHERE leaf_index IS NOT NULL"
            ).fetchall()]
        delays.sort()
        p99 = float(delays[min(len(delays) - 1, int(len(delays) * 0.99))]) if delays else float("nan")
        print(f"appends/s log off: {statistics.median(rates['off']):.0f} (median of {args.rounds} rounds)")
        print(f"appends/s log on:  {statistics.median(rates['on']):.0f}")
        print(f"ratio log on / off: median {statistics.median(ratios):.3f} (rounds: "
              f"{', '.join(f'{x:.3f}' for x in ratios)})")
        print(f"delay game end -> inclusion: p50 {statistics.median(delays):.3f} s, p99 {p99:.3f} s "
              f"({len(delays)} games, sequencer every 0.25 s)")

        with stores["on"].pool.connection() as conn:
            conn.execute("INSERT INTO log_leaves (game_id, version, head_hash, queued_at) SELECT 'bench-' || i, 9,"
                         " encode(sha256(i::text::bytea), 'hex'), now() FROM generate_series(1, %s) i",
                         (args.leaves,))
        start, cpu = time.perf_counter(), time.process_time()
        done = log.integrate_all()
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
        print(f"sequencer: {done} leaves in {wall:.2f} s = {done / wall:.0f} leaves/s (process CPU {cpu:.2f} s)")
    finally:
        for store in stores.values():
            store.close()
        for name in names.values():
            drop(name)

    rng = random.Random(28)
    n = args.proof_leaves
    start = time.perf_counter()
    frontier, made = merkle.append_leaves(0, [], (rng.randbytes(32) for _ in range(n)))
    nodes = {(level, index): digest for level, index, digest in made}
    build = time.perf_counter() - start
    root = merkle.fold(frontier)

    def mth(a: int, b: int) -> bytes:
        return merkle.fold([nodes[k] for k in merkle.perfect_subtrees(a, b)])

    inc_times, inc_sizes, con_times, con_sizes = [], [], [], []
    for _ in range(200):
        index = rng.randrange(n)
        t = time.perf_counter()
        proof = merkle.inclusion_path(index, n, mth)
        inc_times.append(time.perf_counter() - t)
        inc_sizes.append(32 * len(proof))
        merkle.verify_inclusion(index, n, nodes[(0, index)], proof, root)
        first = rng.randrange(1, n)
        t = time.perf_counter()
        cproof = merkle.consistency_path(first, n, mth)
        con_times.append(time.perf_counter() - t)
        con_sizes.append(32 * len(cproof))
        merkle.verify_consistency(first, n, cproof, mth(0, first), root)
    print(f"proofs at {n} leaves (in-memory node map of {len(nodes)} complete subtrees, built in {build:.1f} s): "
          f"inclusion median {statistics.median(inc_sizes)} B, max {max(inc_sizes)} B, median "
          f"{statistics.median(inc_times) * 1e6:.0f} us; consistency median {statistics.median(con_sizes)} B, "
          f"max {max(con_sizes)} B, median {statistics.median(con_times) * 1e6:.0f} us")


if __name__ == "__main__":
    main()
