"""Real-time push benchmark: thousands of open streams and long-polls on one node.

    .venv/bin/python bench/push_bench.py                        # 5000 SSE + 5000 long-polls, ~3 minutes
    .venv/bin/python bench/push_bench.py --sse 200 --polls 200 --probes 20 --window 5   # a quick run

Starts two game-service replicas with the production configuration (``gunicorn -c infra/gunicorn.conf.py``,
gevent workers) on one throwaway PostgreSQL database, then, from one asyncio process (raw HTTP/1.1 over
sockets, so that 10 000 connections cost the client little CPU):

1. opens ``--sse`` SSE streams and ``--polls`` long-polls on replica A, spread over idle games (a long-poll that
   returns is sent again at once, so the count stays up);
2. measures the database transactions of the bench database while they all idle (``pg_stat_database``);
3. while they stay open: ``GET /healthz`` latency, ``POST /actions`` latency on another game, and the wake-up
   latency from sending an action (the commit is inside that request) to its SSE event at a client, with the
   action sent to the same replica and to the other one;
4. reports the server's memory per open connection and its CPU while idle.

Prints one line per figure; targets (docs/performance.md) in the last column. The machine may be shared: the load
average is printed first.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import orjson
import psycopg
from game_bench import (  # the helpers the two HTTP benchmarks share (bench/ is on sys.path when run)
    ADMIN_URL,
    MIGRATIONS,
    ROOT,
    cpu_seconds,
    free_port,
    pct,
    process_tree,
    throwaway_database,
)

CONF = ROOT / "infra" / "gunicorn.conf.py"
API_KEY, ADMIN_KEY = "push-bench-key", "push-bench-admin"


def report(name: str, value: float, unit: str, target: str = "") -> None:
    print(f"{name:<66} {value:>10.2f} {unit:<11} {target}", flush=True)


# -- a minimal HTTP/1.1 client on asyncio streams ---------------------------------------------------

class Conn:
    """One keep-alive connection: ``await conn.call(method, path, body, headers)`` → (status, JSON)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def open(self) -> None:
        self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)

    def send(self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None) -> None:
        assert self.writer is not None
        data = orjson.dumps(body) if body is not None else b""
        lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1", f"Content-Length: {len(data)}"]
        if body is not None:
            lines.append("Content-Type: application/json")
        lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
        self.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + data)

    async def response(self) -> tuple[int, Any]:
        assert self.reader is not None
        head = await self.reader.readuntil(b"\r\n\r\n")
        status = int(head.split(b" ", 2)[1])
        match = re.search(rb"(?i)content-length: *(\d+)", head)
        body = await self.reader.readexactly(int(match.group(1))) if match else b""
        return status, orjson.loads(body) if body else None

    async def call(self, method: str, path: str, body: Any = None,
                   headers: dict[str, str] | None = None) -> tuple[int, Any]:
        if self.writer is None or self.writer.is_closing():
            await self.open()
        self.send(method, path, body, headers)
        return await self.response()

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


class Game:
    """A two-seat game driven by random legal actions (the 201 body tells the next legal actions)."""

    def __init__(self, game_id: str, tokens: list[str], rng: random.Random) -> None:
        self.game_id, self.tokens, self.rng = game_id, tokens, rng
        self.seat, self.legal, self.n = 0, None, 0

    @classmethod
    async def create(cls, conn: Conn, rng: random.Random) -> Game:
        status, body = await conn.call("POST", "/v1/games", {"seats": [{"kind": "human"}, {"kind": "human"}]},
                                       {"X-API-Key": API_KEY})
        assert status == 201, body
        return cls(body["game_id"], [s["token"] for s in body["seats"]], rng)

    async def act(self, conn: Conn, on_send: Callable[[], None] | None = None) -> tuple[int, float, float] | None:
        """One action; returns (new version, POST latency in s, the event's created_at as a Unix time), or None
        when the game ended. ``created_at`` is stamped by the service just before its append statement."""
        while not self.legal:
            auth = {"Authorization": f"Bearer {self.tokens[self.seat]}"}
            _, legal = await conn.call("GET", f"/v1/games/{self.game_id}/legal-actions", headers=auth)
            if legal["actions"]:
                self.legal = legal
            else:
                self.seat = 1 - self.seat
        auth = {"Authorization": f"Bearer {self.tokens[self.seat]}"}
        body = {"seat": self.seat, "action": self.rng.choice(self.legal["actions"]),
                "expected_version": self.legal["version"], "command_id": f"{self.game_id}-{self.n}"}
        self.n += 1
        started = time.perf_counter()
        if on_send:
            on_send()
        status, result = await conn.call("POST", f"/v1/games/{self.game_id}/actions", body, auth)
        latency = time.perf_counter() - started
        assert status == 201, result
        if result["events"][-1]["type"] == "game_ended":
            return None
        self.legal = {"version": result["version"], "actions": result["legal_actions"]} \
            if result["legal_actions"] else None
        if self.legal is None:
            self.seat = 1 - self.seat
        created = datetime.fromisoformat(result["events"][-1]["created_at"]).timestamp()
        return result["version"], latency, created


# -- streams and long-polls -------------------------------------------------------------------------

_ID = re.compile(rb"id: (\d+)\nevent: version")


class Stream:
    """An open SSE stream; ``arrivals[version]`` is when the version's event came in."""

    def __init__(self, port: int, game_id: str, version: int) -> None:
        self.port, self.game_id, self.version = port, game_id, version
        self.arrivals: dict[int, float] = {}
        self.opened = asyncio.Event()
        self.failed: str | None = None
        self.task: asyncio.Task[None] | None = None

    async def run(self) -> None:
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
            writer.write(f"GET /v1/games/{self.game_id}/stream?version={self.version}&timeout=3600 HTTP/1.1\r\n"
                         "Host: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n".encode())
            head = await reader.readuntil(b"\r\n\r\n")
            if b" 200 " not in head.split(b"\r\n", 1)[0]:
                self.failed = head.split(b"\r\n", 1)[0].decode()
                self.opened.set()
                return
            buffer = b""
            while True:
                chunk = await reader.read(65536)
                if not chunk:
                    self.failed = self.failed or "closed"
                    return
                now = time.time()
                buffer = buffer[-64:] + chunk
                if b": connected" in chunk:
                    self.opened.set()
                for match in _ID.finditer(buffer):
                    self.arrivals.setdefault(int(match.group(1)), now)
        except (OSError, asyncio.IncompleteReadError) as exc:
            self.failed = f"{type(exc).__name__}: {exc}"
            self.opened.set()


async def long_poll(port: int, game_id: str, stats: dict[str, int], opened: asyncio.Event,
                    stop: asyncio.Event, poll_timeout: float) -> None:
    """A client that always has a long-poll open: sends it again as soon as one returns."""
    conn = Conn(port)
    try:
        await conn.open()
        while not stop.is_set():
            conn.send("GET", f"/v1/games/{game_id}/wait?version=1&timeout={poll_timeout:g}")
            stats["sent"] += 1
            opened.set()
            status, _ = await conn.response()
            stats["returned"] += 1
            if status != 200:
                stats["refused"] += 1
                await asyncio.sleep(1)
    except (OSError, asyncio.IncompleteReadError):
        stats["errors"] += 1
    finally:
        conn.close()


# -- servers and measurements -----------------------------------------------------------------------

def start_server(url: str, port: int, workers: int, log: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "DATABASE_URL": url, "PORT": str(port), "GUNICORN_BIND": f"127.0.0.1:{port}",
           "WEB_CONCURRENCY": str(workers), "TORRES_API_KEY": API_KEY, "TORRES_ADMIN_KEY": ADMIN_KEY,
           "TORRES_AI_DRIVER": "none", "LOG_LEVEL": "WARNING", "GUNICORN_LOG_LEVEL": "warning",
           "TORRES_MIGRATIONS_DIR": str(MIGRATIONS)}
    with log.open("wb") as out:  # the service's JSON log: the bench counts listener reconnects in it
        return subprocess.Popen([sys.executable, "-m", "gunicorn", "-c", str(CONF), "torres_game.wsgi:app"],
                                env=env, cwd=ROOT, stdout=out, start_new_session=True)


async def wait_ready(port: int) -> None:
    for _ in range(300):
        try:
            conn = Conn(port)
            status, _ = await conn.call("GET", "/readyz")
            conn.close()
            if status == 200:
                return
        except OSError:
            pass
        await asyncio.sleep(0.1)
    raise RuntimeError(f"server on {port} not ready")


def rss_mib(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total / 1024


def db_transactions(name: str) -> int:
    with psycopg.connect(ADMIN_URL, autocommit=True) as conn:  # the admin database: not counted itself
        row = conn.execute("SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = %s",
                           (name,)).fetchone()
    return int(row[0]) if row else 0


async def latency_loop(stop: asyncio.Event, call: Callable[[], Awaitable[float | None]], pause: float,
                       out: list[float]) -> None:
    while not stop.is_set():
        value = await call()
        if value is not None:
            out.append(value)
        await asyncio.sleep(pause)


async def bench(args: argparse.Namespace, url: str, name: str) -> None:
    port_a, port_b = (args.port, args.port + 1) if args.port else (free_port(), free_port())
    logs = Path(tempfile.mkdtemp(prefix="push-bench-"))
    a = start_server(url, port_a, args.workers, logs / "a.log")
    b = start_server(url, port_b, args.workers, logs / "b.log")
    rng = random.Random(1)
    try:
        await wait_ready(port_a)
        await wait_ready(port_b)
        conn = Conn(port_a)
        idle_games = [await Game.create(conn, rng) for _ in range(args.games)]
        rss_before = rss_mib(process_tree(a.pid))
        await asyncio.sleep(min(args.settle, 15))  # PostgreSQL backends report their statistics late
        xact0, t0 = db_transactions(name), time.perf_counter()
        await asyncio.sleep(args.window)
        baseline = (db_transactions(name) - xact0) / (time.perf_counter() - t0)

        # 1. open the streams and the long-polls (idle games: nothing happens on them during the run)
        started = time.perf_counter()
        streams = [Stream(port_a, idle_games[i % len(idle_games)].game_id, 1) for i in range(args.sse)]
        stop_polls = asyncio.Event()
        poll_stats = {"sent": 0, "returned": 0, "refused": 0, "errors": 0}
        poll_opened = [asyncio.Event() for _ in range(args.polls)]
        poll_tasks: list[asyncio.Task[None]] = []
        # Ramp up in batches, as players arrive (a burst of thousands of simultaneous connects only measures the
        # kernel's accept queue); streams first, then long-polls, so that no long-poll reaches its timeout
        # (--poll-timeout) before the idle windows below are over.
        for first in range(0, args.sse, args.ramp):
            batch = streams[first:first + args.ramp]
            for s in batch:
                s.task = asyncio.create_task(s.run())
            await asyncio.gather(*(s.opened.wait() for s in batch))
        for first in range(0, args.polls, args.ramp):
            for i in range(first, min(first + args.ramp, args.polls)):
                poll_tasks.append(asyncio.create_task(long_poll(
                    port_a, idle_games[i % len(idle_games)].game_id, poll_stats, poll_opened[i], stop_polls,
                    args.poll_timeout)))
            await asyncio.gather(*(e.wait() for e in poll_opened[first:first + args.ramp]))
        await asyncio.sleep(2)  # let the last requests reach their workers
        failed = [s.failed for s in streams if s.failed]
        open_sse = sum(1 for s in streams if s.opened.is_set() and not s.failed)
        open_polls = poll_stats["sent"] - poll_stats["returned"]
        report("SSE streams open on replica A", open_sse, "streams", f"(target >= 5000; {len(failed)} failed)")
        report("long-polls open on replica A", open_polls, "requests", "(target >= 5000)")
        report("time to open them all", time.perf_counter() - started, "s")
        if failed:
            print(f"#   first failures: {sorted(set(failed))[:3]}")
        rss_after = rss_mib(process_tree(a.pid))
        report("replica A memory (RSS, all workers) with them open", rss_after, "MiB")
        report("memory per open connection (RSS delta / connections)",
               (rss_after - rss_before) * 1024 / max(1, open_sse + open_polls), "KiB")
        report("bench client CPU to open them (one asyncio process)", resource.getrusage(resource.RUSAGE_SELF).ru_utime,
               "s")

        # 2. idle: what do they cost the database and the CPU? A long-poll that reaches its timeout is answered and
        # sent again, which costs one query (the games row), and PostgreSQL backends report their statistics up to
        # 10 s late (PGSTAT_IDLE_INTERVAL). The long-polls were opened over `ramp` seconds, so they come back in
        # waves of that length every --poll-timeout seconds: the window starts `settle` s after a wave has ended and
        # ends before the next, so that neither a wave nor its late statistics fall inside it. Re-sent polls inside
        # it are still counted and set apart.
        pids = process_tree(a.pid)
        ramp = time.perf_counter() - started
        quiet = args.poll_timeout - ramp - args.settle - 1.0
        window = min(args.window, quiet) if quiet >= 5 else args.window
        await asyncio.sleep(max(0.0, started + args.poll_timeout + ramp + args.settle - time.perf_counter()))
        returned0 = poll_stats["returned"]
        xact0, cpu0, t0 = db_transactions(name), cpu_seconds(pids), time.perf_counter()
        await asyncio.sleep(window)
        xact1, cpu1, t1 = db_transactions(name), cpu_seconds(pids), time.perf_counter()
        reissued = poll_stats["returned"] - returned0
        per_s = (xact1 - xact0) / (t1 - t0)
        report("database transactions/s while all of them are open (pg_stat_database)", per_s, "xact/s",
               f"(baseline {baseline:.2f})")
        report("  of which long-polls answered at their timeout and sent again", reissued / (t1 - t0), "xact/s",
               "(1 query each)")
        report("  the rest: caused by idle waiters", per_s - reissued / (t1 - t0) - baseline, "xact/s", "(target ~ 0)")
        report("replica A CPU while all of them are open (heartbeats, re-sent polls)", (cpu1 - cpu0) / (t1 - t0) * 100,
               "% of a core")

        # 3. under that load: /healthz, actions on another game, wake-up latency on both replicas
        health: list[float] = []
        actions: list[float] = []
        stop = asyncio.Event()
        health_conn, action_conn = Conn(port_a), Conn(port_a)
        busy = await Game.create(action_conn, rng)

        async def health_call() -> float:
            t = time.perf_counter()
            status, _ = await health_conn.call("GET", "/healthz")
            assert status == 200
            return time.perf_counter() - t

        async def action_call() -> float | None:
            nonlocal busy
            out = await busy.act(action_conn)
            if out is None:
                busy = await Game.create(action_conn, rng)
                return None
            return out[1]

        loops = [asyncio.create_task(latency_loop(stop, health_call, 0.05, health)),
                 asyncio.create_task(latency_loop(stop, action_call, 0.05, actions))]
        labels = ("same replica (SSE on A, action via A)", "across replicas (SSE on A, action via B)")
        wake: dict[str, list[float]] = {label: [] for label in labels}
        wake_sent: dict[str, list[float]] = {label: [] for label in labels}
        for label, port in zip(labels, (port_a, port_b), strict=True):
            post_conn = Conn(port)
            probe = await Game.create(post_conn, rng)
            stream = Stream(port_a, probe.game_id, 1)
            stream.task = asyncio.create_task(stream.run())
            await stream.opened.wait()
            for _ in range(args.probes):
                sent: list[float] = []
                out = await probe.act(post_conn, on_send=lambda sent=sent: sent.append(time.time()))
                if out is None:
                    break
                version, _, created = out
                deadline = time.perf_counter() + 5
                while version not in stream.arrivals and time.perf_counter() < deadline:
                    await asyncio.sleep(0.001)
                if version in stream.arrivals:
                    wake[label].append(stream.arrivals[version] - created)
                    wake_sent[label].append(stream.arrivals[version] - sent[0])
                await asyncio.sleep(0.05)
            stream.task.cancel()
            post_conn.close()
        await asyncio.sleep(max(0.0, args.window - 1))
        stop.set()
        await asyncio.gather(*loops)
        report("GET /healthz latency p50 while all are open", pct(health, 0.5) * 1e3, "ms")
        report("GET /healthz latency p99 while all are open", pct(health, 0.99) * 1e3, "ms", "(target < 100 ms)")
        report("POST /actions (another game) p50 while all are open", pct(actions, 0.5) * 1e3, "ms")
        report("POST /actions (another game) p99 while all are open", pct(actions, 0.99) * 1e3, "ms",
               "(target < 250 ms)")
        for label in labels:
            values = wake[label]
            print(f"# wake-up {label}: from the append (the event's created_at, stamped just before the append "
                  "statement) to the SSE event at the client; and from sending the action (upper bound: adds the "
                  "request's own work)")
            report("  append -> SSE event p50", pct(values, 0.5) * 1e3, "ms", "(target < 20 ms)")
            report("  append -> SSE event p95", pct(values, 0.95) * 1e3, "ms", f"(target < 100 ms; n={len(values)})")
            report("  action sent -> SSE event p50", pct(wake_sent[label], 0.5) * 1e3, "ms")
            report("  action sent -> SSE event p95", pct(wake_sent[label], 0.95) * 1e3, "ms")
        lost = sum(p.read_text(errors="replace").count("notification listener lost") for p in logs.glob("*.log"))
        report("notification listener reconnects during the run (both replicas)", lost, "reconnects")
        still_open = sum(1 for s in streams if not s.failed)
        report("SSE streams still open at the end", still_open, "streams")
        report("long-polls refused (503) / broken during the run", poll_stats["refused"] + poll_stats["errors"],
               "requests")
        stop_polls.set()
        for task in [*poll_tasks, *(s.task for s in streams if s.task)]:
            task.cancel()
        await asyncio.gather(*poll_tasks, *(s.task for s in streams if s.task), return_exceptions=True)
        health_conn.close()
        action_conn.close()
        conn.close()
    finally:
        for server in (a, b):
            if server.poll() is None:
                os.killpg(server.pid, 15)
        for server in (a, b):
            try:
                server.wait(40)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, 9)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sse", type=int, default=5000, help="SSE streams to hold open")
    parser.add_argument("--polls", type=int, default=5000, help="long-polls to hold open")
    parser.add_argument("--games", type=int, default=200, help="idle games the streams and polls watch")
    parser.add_argument("--probes", type=int, default=100, help="wake-up probes per replica pairing")
    parser.add_argument("--window", type=float, default=20.0, help="seconds of each measurement window")
    parser.add_argument("--poll-timeout", type=float, default=60.0,
                        help="seconds each long-poll asks the service to wait; the idle window starts after "
                             "their first wave of answers (a smoke run: a few seconds)")
    parser.add_argument("--ramp", type=int, default=250, help="connections opened per batch (of each kind)")
    parser.add_argument("--settle", type=float, default=12.0,
                        help="seconds to wait before each database window (statistics are flushed late)")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers per replica (production: 2)")
    parser.add_argument("--port", type=int, default=0, help="replica A's port (B gets port + 1); 0: free ports")
    args = parser.parse_args()
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    with throwaway_database("torres_push_bench") as url:
        load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
        print(f"# {os.cpu_count()} CPUs, load average before the run: {load} (a shared machine: other loads count);"
              f" open files limit {hard}; {args.workers} gevent workers per replica")
        print(f"{'figure':<66} {'value':>10} unit        target")
        asyncio.run(bench(args, url, url.rpartition("/")[2]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
