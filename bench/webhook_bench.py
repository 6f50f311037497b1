"""Webhooks: delivery latency from the append to the receiver, and accepted actions/s with webhooks on
against off, side by side in one run.

    .venv/bin/python bench/webhook_bench.py                                        # 6 pairs of 6 s slices, 50 games
    .venv/bin/python bench/webhook_bench.py --pairs 1 --slice-seconds 1 --games 2  # smoke (tests/test_benchmarks.py)

Two gunicorn servers in the production configuration (``infra/gunicorn.conf.py``, 2 gevent workers each) on one
throwaway PostgreSQL database, and the HTTP benchmark's load (``game_bench.py``: concurrent clients each playing
two-seat games as fast as the server answers), moved between them in short slices, ABBA
(``game_bench.compare_worker_classes``, which says why). Server A has webhooks on: tenant ``default``'s endpoint
(``TORRES_WEBHOOK_URL``) is a receiver process on a loopback port that checks every signature and records, per
delivery, its arrival minus the payload's ``created_at`` (the time the append recorded). Deliveries are made by
``--delivery process`` (the default): one ``python -m torres_game webhooks`` process, looking at the outbox every
0.2 s, the servers' own delivery threads off (``TORRES_WEBHOOK_INTERVAL=0``); or by
``--delivery thread``: each server process's own worker thread, woken by its appends (the embedded default), which
under this load waits in the gevent loop behind the requests; or ``--delivery none``: nobody posts until the
slices are over (the drain then delivers all), which isolates what writing the outbox costs the appends. Server B
has no endpoint: no outbox rows, no deliveries. The CPU the receiver and the delivery process spent over the
slices is printed per webhook delivered in them.

Prints the ratio on / off (target >= 0.95), the latency p50/p99 of the deliveries that arrived during the slices,
and the accounting: webhooks written, delivered (those the servers left pending when they stopped are delivered
afterwards by a worker in this process, and counted apart), repeated deliveries and bad signatures.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

from game_bench import (
    MIGRATIONS,
    compare_worker_classes,
    cpu_seconds,
    free_port,
    pct,
    report,
    throwaway_database,
)

SECRET = "bench-webhook-secret"
#: Seconds between the receiver's flushes of what it recorded (a reader waits longer than this).
FLUSH = 0.1


def receive(port: int, out: Path, secret: str) -> int:
    """The receiver process, the portal's endpoint: answers 200 to every POST (kept alive, as a portal's web server
    answers) and appends ``<delivery id> <latency s> <signature ok>``, flushed every :data:`FLUSH` seconds.

    An asyncio protocol on one loop, not ``http.server`` nor asyncio's streams: it stands in for a portal's server,
    which runs on the portal's machines, and shares the benchmark's two cores only because the benchmark has one
    machine, so it is written to cost those cores little (bench/results/webhook-cpu-*.json compare them).
    """
    import asyncio

    from torres_service import webhooks

    sink = out.open("a", encoding="utf-8")

    class Endpoint(asyncio.Protocol):
        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            self.transport: asyncio.Transport = transport  # type: ignore[assignment]
            self.buffer = b""

        def data_received(self, data: bytes) -> None:
            arrived = time.time()
            self.buffer += data
            while (end := self.buffer.find(b"\r\n\r\n")) >= 0:
                headers = dict(line.split(": ", 1) for line in self.buffer[:end].decode("latin-1").split("\r\n")[1:])
                start = end + 4
                stop = start + int(headers.get("Content-Length", "0"))
                if len(self.buffer) < stop:
                    return
                body, self.buffer = self.buffer[start:stop], self.buffer[stop:]
                self.transport.write(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
                ok = webhooks.verify(secret, headers, body)
                created = datetime.fromisoformat(json.loads(body)["created_at"]).timestamp()
                sink.write(f"{headers['X-Torres-Delivery']} {arrived - created:.6f} {int(ok)}\n")

    async def main() -> None:
        loop = asyncio.get_running_loop()
        server = await loop.create_server(Endpoint, "127.0.0.1", port)
        stop = asyncio.Event()
        loop.add_signal_handler(signal.SIGTERM, stop.set)

        def flush() -> None:
            sink.flush()
            loop.call_later(FLUSH, flush)

        flush()
        print("ready", flush=True)
        async with server:
            await stop.wait()

    asyncio.run(main())
    sink.close()
    return 0


@contextlib.contextmanager
def receiver(out: Path, script: Path = Path(__file__), env: dict[str, str] | None = None
             ) -> Iterator[tuple[str, int]]:
    """The receiver process (``script``'s: this one, or another revision's copy of it, with that revision's
    libraries in ``env``): yields its URL and pid."""
    port = free_port()
    process = subprocess.Popen([sys.executable, str(script), "--receive", str(port), "--out", str(out)],
                               stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert process.stdout is not None and process.stdout.readline().strip() == "ready"
        yield f"http://127.0.0.1:{port}/hooks", process.pid
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(10)


@contextlib.contextmanager
def delivery_process(url: str, hook_url: str) -> Iterator[int]:
    """``python -m torres_game webhooks`` on the benchmark's database: yields its pid."""
    env = {**os.environ, "DATABASE_URL": url, "TORRES_WEBHOOK_URL": hook_url, "TORRES_WEBHOOK_SECRET": SECRET,
           "TORRES_API_KEY": "bench-key", "TORRES_ADMIN_KEY": "bench-admin", "LOG_LEVEL": "WARNING",
           "TORRES_MIGRATIONS_DIR": str(MIGRATIONS)}
    process = subprocess.Popen([sys.executable, "-m", "torres_game", "webhooks"], env=env, stdout=subprocess.DEVNULL)
    try:
        yield process.pid
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(30)


def drain(url: str, hook_url: str) -> int:
    """Deliver what the servers left pending when they stopped; returns how many rows that was."""
    from torres_game.config import Config
    from torres_game.store import PostgresEventStore
    from torres_game.webhooks import WebhookWorker
    from torres_service.principals import Registries, Registry, Webhook

    store = PostgresEventStore(url, migrations_dir=MIGRATIONS)
    worker = WebhookWorker(store, Registries(Registry.single_key("drain", webhook=Webhook(hook_url, SECRET))),
                           Config(database_url=url))
    try:
        left = store.webhook_backlog()
        while worker.deliver_due():
            pass
        return left
    finally:
        worker.close()
        store.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, default=6, help="pairs of slices (on, off)")
    parser.add_argument("--slice-seconds", type=float, default=6.0)
    parser.add_argument("--games", type=int, default=50, help="concurrent games (the HTTP benchmark's load)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--delivery", choices=("process", "thread", "none"), default="process",
                        help="who posts: a webhook worker process (default), each server's own thread, or nobody"
                             " during the slices (the outbox is written; what the appends' own share costs)")
    parser.add_argument("--receive", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.receive:
        return receive(args.receive, args.out, SECRET)
    os.environ.setdefault("TORRES_WEBHOOK_ALLOW_NETWORKS", "127.0.0.0/8")  # the receiver, for every process
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"# {os.cpu_count()} CPUs, load average before the run: {load} (a shared machine: other loads count)")
    with throwaway_database("torres_webhook_bench") as url, contextlib.ExitStack() as stack:
        import tempfile

        from torres_game.store import PostgresEventStore

        store = PostgresEventStore(url, migrations_dir=MIGRATIONS)
        store.migrate()
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        log = folder / "received.txt"
        hook_url, receiver_pid = stack.enter_context(receiver(log))
        helpers = {"receiver": [receiver_pid]}
        print(f"{'figure':<58} {'value':>10} unit       target")
        on = {"TORRES_WEBHOOK_URL": hook_url, "TORRES_WEBHOOK_SECRET": SECRET}
        if args.delivery != "thread":
            on["TORRES_WEBHOOK_INTERVAL"] = "0"
        if args.delivery == "process":
            helpers["delivery process"] = [stack.enter_context(delivery_process(url, hook_url))]
        print(f"# delivery: {args.delivery}")
        spent = {name: cpu_seconds(pids) for name, pids in helpers.items()}
        ratio = compare_worker_classes(url, args.pairs, args.slice_seconds, args.games, args.workers, 8,
                                       ("gevent", "gevent"), (on, {}))
        spent = {name: cpu_seconds(helpers[name]) - before for name, before in spent.items()}
        time.sleep(3 * FLUSH)
        in_run = log.read_text().splitlines()
        left = drain(url, hook_url)
        time.sleep(0.5)
        lines = [line.split() for line in log.read_text().splitlines()]
        with store.pool.connection() as conn:
            written, delivered, pending = conn.execute(
                "SELECT count(*), count(*) FILTER (WHERE status = 'delivered'),"
                " count(*) FILTER (WHERE status = 'pending') FROM webhook_outbox").fetchone()  # type: ignore[misc]
        store.close()
    latencies = [float(line.split()[1]) for line in in_run]
    report("ratio webhooks on / off (accepted actions/s), median of the pairs", ratio, "x", "(target >= 0.95)")
    if latencies:
        report(f"webhook latency append -> receiver p50 ({len(latencies)} deliveries)", pct(latencies, 0.5) * 1e3, "ms")
        report("webhook latency append -> receiver p99", pct(latencies, 0.99) * 1e3, "ms")
    for name, seconds in spent.items() if in_run else ():  # over both servers' slices: beside the servers
        report(f"CPU of the {name} per webhook delivered in the run", seconds / len(in_run) * 1e3, "ms")
    report("webhooks written (outbox rows)", written, "rows")
    report("webhooks delivered", delivered, "rows", f"({pending} pending)")
    report("  of which left pending by the stopped servers", left, "rows")
    report("repeated deliveries (same delivery id again)", len(lines) - len({line[0] for line in lines}), "posts")
    report("signatures that did not verify", sum(line[2] != "1" for line in lines), "posts")
    print(f"# load average after the run: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
