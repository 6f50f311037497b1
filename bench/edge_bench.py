"""Edge figures of issue 10: descriptors of the embedded server, and the cost of checking an action body.

    .venv/bin/python bench/edge_bench.py              # 1000 requests, 20 000 body checks x 7 rounds
    .venv/bin/python bench/edge_bench.py --quick

1. ``python -m torres_game serve`` (the werkzeug server ``make run`` starts: a thread per connection) on a
   throwaway SQLite file; requests each on a fresh TCP connection; prints the process's open descriptors
   (``/proc/<pid>/fd``) after a warm-up and after every quarter of the requests. Before issue 10 the count
   grew by two per request (53 -> 651 after 300 in tests/game/test_serve_process.py).
2. The hot path's body check (``plain_action_request``) with and without the free-form check of the action
   (``plain_json``) that issue 10 added, side by side in one run: median microseconds per body, and the ratio.
"""

from __future__ import annotations

import argparse
import http.client
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from unittest import mock

ROOT = Path(__file__).resolve().parents[1]


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


BENCH_KEY = "edge-bench-key"  # the served game list needs a tenant's key (issue 26)


def _get(port: int, path: str) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", path, headers={"X-API-Key": BENCH_KEY})
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


def descriptors(requests: int) -> None:
    with tempfile.TemporaryDirectory() as data:
        port = _port()
        env = {**os.environ, "DATABASE_URL": f"sqlite:///{data}/torres.sqlite3", "TORRES_AI_DRIVER": "none",
               "TORRES_API_KEY": BENCH_KEY,
               "TORRES_MIGRATIONS_DIR": str(ROOT / "infra" / "migrations")}
        process = subprocess.Popen([sys.executable, "-m", "torres_game", "serve", "--port", str(port)], env=env,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            for _ in range(600):
                try:
                    if _get(port, "/readyz") == 200:
                        break
                except OSError:
                    time.sleep(0.1)
            fds = lambda: len(os.listdir(f"/proc/{process.pid}/fd"))  # noqa: E731
            for _ in range(20):
                _get(port, "/v1/games?limit=5")
            counts = [fds()]
            statuses: dict[int, int] = {}
            for n in range(requests):
                status = _get(port, "/readyz" if n % 2 else "/v1/games?limit=5")
                statuses[status] = statuses.get(status, 0) + 1
                if (n + 1) % (requests // 4) == 0:
                    counts.append(fds())
            print(f"serve descriptors after warm-up and each quarter of {requests} requests on fresh connections: "
                  f"{' -> '.join(map(str, counts))} (statuses {statuses})")
        finally:
            process.terminate()
            process.wait(timeout=10)


def body_check(n: int, rounds: int) -> None:
    from torres_game.http import schemas

    body = {"seat": 1, "action": {"type": "move_knight", "from": "C3", "to": "C4"}, "expected_version": 41,
            "command_id": "c0a8f1e2-5b7d-4c1e-9f3a-2d6b8e4f7a10"}

    def per_body() -> float:
        started = time.perf_counter()
        for _ in range(n):
            schemas.plain_action_request(body)
        return (time.perf_counter() - started) / n * 1e6

    with_check, without = [], []
    for _ in range(rounds):  # interleaved, so that the machine's load hits both alike
        with_check.append(per_body())
        with mock.patch.object(schemas, "plain_json", lambda value: None):
            without.append(per_body())
    a, b = statistics.median(with_check), statistics.median(without)
    print(f"plain_action_request: {a:.2f} us per body with the action check, {b:.2f} us without "
          f"(median of {rounds} rounds of {n}); ratio {a / b:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    descriptors(200 if args.quick else 1000)
    body_check(5_000 if args.quick else 20_000, 5 if args.quick else 7)


if __name__ == "__main__":
    main()
