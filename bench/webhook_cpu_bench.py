"""What one webhook costs each process that handles it, in CPU time, this checkout against another revision, side by
side: the outbox row in the append (PostgreSQL), the delivery worker's claim, post and record, and the
benchmark's receiver (the portal's stand-in in ``webhook_bench.py``).

    .venv/bin/python bench/webhook_cpu_bench.py                    # against 4d6c451 (before 2026-11-27 07:00)
    .venv/bin/python bench/webhook_cpu_bench.py --against REV --rounds 6 --rows 1000

CPU time, not wall time: ``webhook_bench.py``'s ratio of accepted actions/s moves by ±4 % between 10-pair runs on
this shared two-core machine, more than any one of these parts; a process's CPU time per webhook moves much less.

* **outbox**: one PostgreSQL connection appends ``--rows`` events to one game, each with no webhook or with one
  ``turn.started`` row of the usual size, on two throwaway databases: this checkout's migrations, and the same with
  ``torres_write_webhooks`` as ``--against`` defined it. The backend's CPU (``/proc/<pid>/schedstat``) per append;
  the row's cost is the difference with and without it, per round, the median over rounds.
* **delivery**: ``--rows`` outbox rows, then ``WebhookWorker.deliver_due`` until none is left (8 posts at once to
  one receiver, each recorded in its own transaction): this checkout's worker, and the same with no post at all
  (the claim and the record alone). The process's CPU (all threads) per webhook.
* **receiver**: ``--rows`` posts (8 threads) to this checkout's ``webhook_bench.py --receive`` and to
  ``--against``'s; the receiver process's CPU per webhook.

Rounds alternate the order of the variants. Prints medians with each round's figure, and the machine's load.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import webhook_bench
from game_bench import MIGRATIONS, ROOT, checkout_of, cpu_seconds, new_bench_game, packages_of, throwaway_database
from webhook_bench import SECRET

SUMMARY = {"stage": "turn", "phase": 1, "round": 1, "to_move": 0, "scores": [0, 0], "winner": None}


def payload(delivery_id: str) -> dict[str, Any]:
    """A ``turn.started`` body of the usual size (about 500 bytes of JSON)."""
    return {"id": delivery_id, "type": "turn.started", "tenant": "default", "game_id": delivery_id.split(".")[0],
            "external_id": "portal-game-0001", "labels": {"league": "autumn"}, "version": 1,
            "created_at": "2026-11-27T00:00:00+00:00",
            "data": {"seat": 1, "kind": "human", "player_id": "portal-user-0002", "display_name": "Bert",
                     "deadline": "2026-11-28T00:00:00+00:00", "stage": "turn", "phase": 1, "round": 2}}


def append(store: Any, game_id: str, version: int, *, webhook: bool) -> None:
    """One event appended to ``game_id`` at ``version``, with one ``turn.started`` outbox row or none."""
    from torres_game.store.base import AppendOptions, NewEvent, WebhookRow

    delivery = f"{game_id}.{version}.turn.started"
    rows = [WebhookRow(delivery, "default", "turn.started", payload(delivery))] if webhook else []
    store.append(game_id, version, [NewEvent("action_applied", {"seat": 0})], f"c{version}",
                 AppendOptions(fingerprint="f", summary=SUMMARY, webhooks=rows))


def git_show(rev: str, path: str) -> str:
    return subprocess.run(["git", "show", f"{rev}:{path}"], cwd=ROOT, check=True, capture_output=True,
                          text=True).stdout


def rounds_of(variants: dict[str, Callable[[], float]], rounds: int) -> dict[str, list[float]]:
    """Each variant once per round, the order reversed every other round."""
    out: dict[str, list[float]] = {name: [] for name in variants}
    for n in range(rounds):
        for name in (list(variants) if n % 2 else list(variants)[::-1]):
            out[name].append(variants[name]())
    return out


def show(label: str, values: list[float]) -> None:
    print(f"{label:<64} {statistics.median(values):>8.0f} µs   ({', '.join(f'{v:.0f}' for v in values)})", flush=True)


# -- outbox -------------------------------------------------------------------------------------------------

def backend_cpu(pid: int) -> int:
    return int(Path(f"/proc/{pid}/schedstat").read_text().split()[0])


def outbox(against: str, rows: int, rounds: int) -> None:
    from torres_game.store import PostgresEventStore

    definition = "infra/migrations/postgres/definitions/torres_write_webhooks.sql"
    with contextlib.ExitStack() as stack:
        sides: dict[str, tuple[Any, int, str, list[int]]] = {}
        for n, (side, text) in enumerate((("this checkout", None), (against, git_show(against, definition)))):
            url = stack.enter_context(throwaway_database(f"torres_outbox_bench{n}"))
            store = PostgresEventStore(url, min_size=1, max_size=1, migrations_dir=MIGRATIONS)
            stack.callback(store.close)
            store.migrate()
            with store.pool.connection() as conn:
                if text is not None:
                    conn.execute(text)
                pid = conn.execute("SELECT pg_backend_pid()").fetchone()[0]  # type: ignore[index]
            sides[side] = (store, pid, new_bench_game(store), [1])

        def appends(side: str, hooks: bool) -> Callable[[], float]:
            store, pid, game_id, version = sides[side]

            def run() -> float:
                before = backend_cpu(pid)
                for _ in range(rows):
                    append(store, game_id, version[0], webhook=hooks)
                    version[0] += 1
                return (backend_cpu(pid) - before) / rows / 1e3
            return run

        variants = {f"{side}, {'one webhook' if hooks else 'none'}": appends(side, hooks)
                    for side in sides for hooks in (False, True)}
        figures = rounds_of(variants, rounds)
    print(f"# outbox: PostgreSQL backend CPU per append ({rows} appends a round, {rounds} rounds)")
    for name, values in figures.items():
        show(f"  {name}", values)
    for side in sides:
        show(f"  the webhook row, {side}", [b - a for a, b in zip(figures[f"{side}, none"],
                                                                   figures[f"{side}, one webhook"], strict=True)])


# -- delivery -----------------------------------------------------------------------------------------------

def delivery(rows: int, rounds: int, folder: Path) -> None:
    from torres_game.config import Config
    from torres_game.store import PostgresEventStore
    from torres_game.webhooks import WebhookWorker
    from torres_service.principals import Registries, Registry, Webhook
    from torres_service.webhooks import Attempt

    with throwaway_database("torres_delivery_bench") as url, \
            webhook_bench.receiver(folder / "received.txt") as (hook, _):
        store = PostgresEventStore(url, min_size=1, max_size=4, migrations_dir=MIGRATIONS)
        store.migrate()
        game_id = new_bench_game(store)
        version = [1]
        registries = Registries(Registry.single_key("default", webhook=Webhook(hook, SECRET)))
        config = Config(database_url=url, webhook_batch=20, webhook_concurrency=8, webhook_endpoint_concurrency=8)

        def deliver(kind: str) -> Callable[[], float]:
            def run() -> float:
                for _ in range(rows):
                    append(store, game_id, version[0], webhook=True)
                    version[0] += 1
                worker = WebhookWorker(store, registries, config)
                if kind == "none":
                    worker._poster.post = lambda *_: Attempt(True, 200)  # type: ignore[method-assign]
                started, delivered = time.process_time(), 0
                while claimed := worker.deliver_due():
                    delivered += claimed
                spent = time.process_time() - started
                worker.close()
                assert delivered == rows, (delivered, rows)
                return spent / delivered * 1e6
            return run

        figures = rounds_of({"this checkout's worker": deliver("this"),
                             "no post (claim and record only)": deliver("none")}, rounds)
        store.close()
    print(f"# delivery: the worker process's CPU per webhook ({rows} a round, 8 at once, one endpoint)")
    for name, values in figures.items():
        show(f"  {name}", values)


# -- receiver -----------------------------------------------------------------------------------------------

def receiver(against: str, rows: int, rounds: int, folder: Path) -> None:
    from torres_service.webhooks import Poster

    body = json.dumps(payload("g.1.turn.started"), separators=(",", ":")).encode()
    with checkout_of(against) as old, webhook_bench.receiver(folder / "received-this.txt") as this, \
            webhook_bench.receiver(folder / "received-them.txt", old / "bench" / "webhook_bench.py",
                                   {**os.environ, "PYTHONPATH": packages_of(old)}) as them:
        def posts(url: str, pid: int) -> Callable[[], float]:
            def run() -> float:
                poster = Poster(5.0, connections=8)
                before = cpu_seconds([pid])

                def work(k: int) -> None:
                    for i in range(rows // 8):
                        assert poster.post(url, SECRET, body, f"d{k}.{i}").ok

                threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
                for t in threads:
                    t.start()
                for t in threads:
                    t.join()
                time.sleep(0.1)  # the last answers' bookkeeping
                poster.close()
                return (cpu_seconds([pid]) - before) / (rows // 8 * 8) * 1e6
            return run

        figures = rounds_of({"this checkout's receiver": posts(*this), f"{against}'s receiver": posts(*them)}, rounds)
    print(f"# receiver: the receiver process's CPU per webhook ({rows} posts a round, 8 threads posting)")
    for name, values in figures.items():
        show(f"  {name}", values)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--against", default="4d6c451", help="the revision to compare with")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--rows", type=int, default=1000, help="appends, webhooks or posts per variant and round")
    parser.add_argument("--only", choices=("outbox", "delivery", "receiver"))
    args = parser.parse_args()
    os.environ.setdefault("TORRES_WEBHOOK_ALLOW_NETWORKS", "127.0.0.0/8")  # the receivers are on loopback
    print(f"# {os.cpu_count()} CPUs, load average before: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory() as folder:
        if args.only in (None, "outbox"):
            outbox(args.against, args.rows, args.rounds)
        if args.only in (None, "delivery"):
            delivery(args.rows, args.rounds, Path(folder))
        if args.only in (None, "receiver"):
            receiver(args.against, args.rows, args.rounds, Path(folder))
    print(f"# load average after: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
