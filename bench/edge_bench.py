"""Edge figures: descriptors of the embedded server, and the cost of checking an action body.

    .venv/bin/python bench/edge_bench.py              # 1000 requests, 20 000 body checks x 7 rounds
    .venv/bin/python bench/edge_bench.py --quick

1. ``python -m torres_game serve`` (the werkzeug server ``make run`` starts: a thread per connection) on a
   throwaway SQLite file; requests each on a fresh TCP connection; prints the process's open descriptors
   (``/proc/<pid>/fd``) after a warm-up and after every quarter of the requests. The count must stay flat:
   per-thread connections never closed grew it by two per request (tests/game/test_serve_process.py).
2. The check of an action body: its one validator, the document's schema compiled (``DocumentedBody``),
   against marshmallow's load of the schema that declares it (the general path it replaced), side by side
   in one run: median microseconds per body, and the ratio.
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

ROOT = Path(__file__).resolve().parents[1]


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


BENCH_KEY = "edge-bench-key"  # the served game list needs a tenant's key


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
    from marshmallow import Schema

    from torres_game.app import create_app
    from torres_game.config import Config
    from torres_game.http import schemas
    from torres_game.http.games import ACTION_BODY

    body = {"seat": 1, "action": {"type": "move_knight", "from": "C3", "to": "C4"}, "expected_version": 41,
            "command_id": "c0a8f1e2-5b7d-4c1e-9f3a-2d6b8e4f7a10"}
    with tempfile.TemporaryDirectory() as folder:
        app = create_app(Config(database_url=f"sqlite:///{folder}/bench.sqlite3", api_key=BENCH_KEY, admin_key="a",
                                ai_driver="none", log_level="ERROR", log_interval=0, enforcer_interval=0))
    compiled, declared = app.extensions[ACTION_BODY], schemas.ActionRequestSchema()

    def per_body(check: object) -> float:
        started = time.perf_counter()
        for _ in range(n):
            check(body)  # type: ignore[operator]
        return (time.perf_counter() - started) / n * 1e6

    document, general = [], []
    for _ in range(rounds):  # interleaved, so that the machine's load hits both alike
        document.append(per_body(compiled.load))
        general.append(per_body(lambda data: Schema.load(declared, data)))
    a, b = statistics.median(document), statistics.median(general)
    print(f"action body check: {a:.2f} us per body against the compiled document, {b:.2f} us with marshmallow's "
          f"load (median of {rounds} rounds of {n}); ratio {a / b:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    descriptors(200 if args.quick else 1000)
    body_check(5_000 if args.quick else 20_000, 5 if args.quick else 7)


if __name__ == "__main__":
    main()
