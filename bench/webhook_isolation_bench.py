"""Webhooks that no tenant can stall: a black-box run of the production setup with three portals, A's endpoint
accepting connections and never answering, B's answering 200 at once, C's answering 500.

    .venv/bin/python bench/webhook_isolation_bench.py                          # 270 s, the worker killed at 120 s
    .venv/bin/python bench/webhook_isolation_bench.py --seconds 30 --kill-at 10  # smoke

gunicorn with ``infra/gunicorn.conf.py`` (2 gevent workers) on a throwaway PostgreSQL database, the replicas'
delivery threads off (``TORRES_WEBHOOK_INTERVAL=0``), one ``python -m torres_game webhooks`` worker, every other
``TORRES_WEBHOOK_*`` at its default (``TORRES_WEBHOOK_ALLOW_NETWORKS`` lists loopback: the endpoints are this
process's). Each portal creates games over HTTP all along (A 3 a second, B and C 1 each; a game is two webhooks,
``game.created`` and ``turn.started``). At ``--kill-at`` the worker is SIGKILLed and another started.

Prints, for B: webhooks written, delivered, lost, posted more than once, and the latency from the append
(the payload's ``created_at``) to its arrival, p50 / p99 / max; for A and C: webhooks written, attempted, the
attempts the endpoint saw, the failure names the delivery log recorded, and the shortest gap between two attempts
of one webhook against the documented back-off (1, 2, 4 … s).
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from game_bench import MIGRATIONS, ROOT, Client, gunicorn_server, pct, throwaway_database

from torres_game.store import PostgresEventStore
from torres_game.store.base import WebhookDelivery
from torres_service import webhooks as signing

SECRET = "isolation-bench-webhook-secret"
SEATS = [{"kind": "human", "player_id": "p0"}, {"kind": "human", "player_id": "p1"}]
ALLOW = "127.0.0.0/8"


class Endpoint:
    """A portal's endpoint on loopback: ``ok`` answers 200, ``error`` 500, ``hang`` reads and never answers. It
    keeps every arrival (time, delivery id, the payload's ``created_at``)."""

    def __init__(self, behaviour: str) -> None:
        self.behaviour = behaviour
        self.arrivals: list[tuple[float, str, str]] = []
        self._held: list[socket.socket] = []
        self._server = socket.create_server(("127.0.0.1", 0), backlog=512)
        self.url = f"http://127.0.0.1:{self._server.getsockname()[1]}/hooks"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self._server.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        with contextlib.suppress(OSError):
            data = b""
            while True:
                while b"\r\n\r\n" not in data:
                    chunk = conn.recv(65536)
                    if not chunk:
                        conn.close()
                        return
                    data += chunk
                head, _, data = data.partition(b"\r\n\r\n")
                headers = dict(line.decode().split(": ", 1) for line in head.split(b"\r\n")[1:])
                length = int(headers["Content-Length"])
                while len(data) < length:
                    data += conn.recv(65536)
                body, data = data[:length], data[length:]
                at = time.time()
                if not signing.verify(SECRET, headers, body):
                    raise SystemExit("a webhook with a bad signature")
                self.arrivals.append((at, headers["X-Torres-Delivery"], json.loads(body)["created_at"]))
                if self.behaviour == "hang":
                    self._held.append(conn)
                    return
                status = b"200 OK" if self.behaviour == "ok" else b"500 Busy"
                conn.sendall(b"HTTP/1.1 " + status + b"\r\nContent-Length: 0\r\n\r\n")

    def close(self) -> None:
        self._server.close()
        for conn in self._held:
            conn.close()


def keys(path: Path, *args: str) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-m", "torres_service.keys", "--file", str(path), *args],
                          capture_output=True, text=True, check=True, cwd=ROOT,
                          env={**os.environ, "TORRES_WEBHOOK_ALLOW_NETWORKS": ALLOW})
    return json.loads(done.stdout)  # type: ignore[no-any-return]


@contextlib.contextmanager
def worker(url: str, tenants: Path, log: Path) -> Iterator[subprocess.Popen[bytes]]:
    env = {**os.environ, "DATABASE_URL": url, "TORRES_TENANTS_FILE": str(tenants), "TORRES_API_KEY": "bench-key",
           "TORRES_ADMIN_KEY": "bench-admin", "TORRES_MIGRATIONS_DIR": str(MIGRATIONS), "LOG_LEVEL": "WARNING",
           "TORRES_WEBHOOK_ALLOW_NETWORKS": ALLOW}
    with log.open("ab") as out:
        process = subprocess.Popen([sys.executable, "-m", "torres_game", "webhooks"], env=env, stdout=out,
                                   stderr=subprocess.STDOUT)
    try:
        yield process
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            process.wait(30)


def portal(port: int, key: str, rate: float, started: float, stop: threading.Event, made: list[str]) -> None:
    """A portal creating ``rate`` games a second from ``started`` until ``stop``."""
    client = Client(port)
    for n in itertools.count():
        if stop.wait(max(0.0, started + n / rate - time.monotonic())):
            return
        status, doc = client.call("POST", "/v1/games", {"seats": SEATS}, {"X-API-Key": key})
        if status != 201:
            raise SystemExit(f"creating a game: {status} {doc}")
        made.append(doc["game_id"])


def rows_of(store: PostgresEventStore, tenant: str) -> list[WebhookDelivery]:
    rows: list[WebhookDelivery] = []
    while page := store.webhook_deliveries(after=rows[-1].seq if rows else 0, limit=1000, tenant=tenant):
        rows.extend(page)
    return rows


def shortest_gap_over_backoff(arrivals: list[tuple[float, str, str]]) -> float | None:
    """The smallest (gap between attempts n and n+1 of one webhook) / backoff(n), over every webhook: >= 1 when the
    back-off was followed."""
    by_id: dict[str, list[float]] = {}
    for at, delivery_id, _ in arrivals:
        by_id.setdefault(delivery_id, []).append(at)
    ratios = [(two - one) / signing.backoff(n) for times in by_id.values()
              for n, (one, two) in enumerate(itertools.pairwise(sorted(times)), start=1)]
    return min(ratios) if ratios else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=270.0)
    parser.add_argument("--kill-at", type=float, default=120.0, help="SIGKILL the worker this long into the run")
    parser.add_argument("--drain", type=float, default=90.0, help="seconds allowed after the run for B's last")
    args = parser.parse_args()
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"# {os.cpu_count()} CPUs, load average before the run: {load}")
    endpoints = {"a": Endpoint("hang"), "b": Endpoint("ok"), "c": Endpoint("error")}
    rates = {"a": 3.0, "b": 1.0, "c": 1.0}
    with tempfile.TemporaryDirectory() as folder, throwaway_database("torres_webhook_isolation") as url:
        tenants = Path(folder) / "tenants.json"
        api_keys = {}
        for name, endpoint in endpoints.items():
            keys(tenants, "add-tenant", name)
            api_keys[name] = keys(tenants, "add-key", name, "--scopes", "games")["key"]
            keys(tenants, "set-webhook", name, "--url", endpoint.url, "--secret", SECRET)
        overrides = {"TORRES_TENANTS_FILE": str(tenants), "TORRES_WEBHOOK_INTERVAL": "0",
                     "TORRES_WEBHOOK_ALLOW_NETWORKS": ALLOW}
        log = Path(folder) / "worker.log"
        stop = threading.Event()
        made: dict[str, list[str]] = {name: [] for name in endpoints}
        with gunicorn_server(url, 2, 0, overrides=overrides) as (port, _), contextlib.ExitStack() as workers:
            first = workers.enter_context(worker(url, tenants, log))
            started = time.monotonic()
            threads = [threading.Thread(target=portal, args=(port, api_keys[n], rates[n], started, stop, made[n]),
                                        daemon=True) for n in endpoints]
            for thread in threads:
                thread.start()
            killed_at = None
            while (elapsed := time.monotonic() - started) < args.seconds:
                if killed_at is None and elapsed >= args.kill_at:
                    first.send_signal(signal.SIGKILL)
                    first.wait(10)
                    killed_at = time.time()
                    workers.enter_context(worker(url, tenants, log))
                time.sleep(0.2)
            stop.set()
            for thread in threads:
                thread.join(30)
            store = PostgresEventStore(url, migrations_dir=MIGRATIONS, max_size=2)
            written = {n: rows_of(store, n) for n in endpoints}
            deadline = time.monotonic() + args.drain
            while time.monotonic() < deadline:
                got = {d for _, d, _ in endpoints["b"].arrivals}
                if got >= {r.delivery_id for r in written["b"]}:
                    break
                time.sleep(0.5)
            rows = {n: rows_of(store, n) for n in endpoints}
            store.close()
    for endpoint in endpoints.values():
        endpoint.close()

    b_ids = {r.delivery_id for r in rows["b"]}
    first_arrival: dict[str, float] = {}
    latency: dict[str, float] = {}
    for at, delivery_id, created in endpoints["b"].arrivals:
        if delivery_id not in first_arrival:
            first_arrival[delivery_id] = at
            latency[delivery_id] = at - datetime.fromisoformat(created.replace("Z", "+00:00")).timestamp()
    posts = Counter(d for _, d, _ in endpoints["b"].arrivals)
    values = sorted(latency.values())
    print(f"# {args.seconds:.0f} s; the worker SIGKILLed at {args.kill_at:.0f} s and another started; "
          f"games created: A {len(made['a'])}, B {len(made['b'])}, C {len(made['c'])}")
    delivered = set(first_arrival)
    print(f"B  written {len(b_ids)}, delivered {len(b_ids & delivered)}, lost {len(b_ids - delivered)}"
          f", posted more than once {sum(1 for n in posts.values() if n > 1)}, status "
          f"{dict(Counter(r.status for r in rows['b']))}")
    if values:
        print(f"B  latency append -> arrival: p50 {pct(values, 0.5):.3f} s, p99 {pct(values, 0.99):.3f} s, "
              f"max {values[-1]:.3f} s")
    for name in ("a", "c"):
        attempted = [r for r in rows[name] if r.attempts]
        gap = shortest_gap_over_backoff(endpoints[name].arrivals)
        print(f"{name.upper()}  written {len(rows[name])}, attempted {len(attempted)}, attempts recorded "
              f"{sum(r.attempts for r in attempted)}, posts the endpoint saw {len(endpoints[name].arrivals)}, "
              f"failures {dict(Counter(r.last_error for r in attempted))}, status "
              f"{dict(Counter(r.status for r in rows[name]))}, shortest gap / back-off "
              f"{'-' if gap is None else f'{gap:.2f}'}")
    print(f"# load average after: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0 if b_ids <= set(first_arrival) else 1


if __name__ == "__main__":
    sys.exit(main())
