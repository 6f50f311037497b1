"""Game service benchmark: append latency, fold time, HTTP actions per second.

    .venv/bin/python bench/game_bench.py            # everything, ~2 minutes
    .venv/bin/python bench/game_bench.py --quick    # smaller runs
    .venv/bin/python bench/game_bench.py --only http --compare-limits 6   # rate limits on vs off, side by side

Uses a throwaway PostgreSQL database (``TEST_DATABASE_URL`` admin URL, default local trust auth),
dropped at the end, and starts/stops its own gunicorn on 127.0.0.1. Prints one line per figure.
Targets: append p99 < 10 ms; >= 500 accepted actions/s over HTTP; complete-game rebuild < 20 ms.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson
import psycopg

import torres_rules as tr
from torres_audit.chain import GENESIS_HASH
from torres_game import events as ev
from torres_game.store import PostgresEventStore
from torres_game.store.base import AppendOptions, GameRecord, GameSecret, NewEvent, StoredEvent, stamp
from torres_online.events import initial_state
from torres_online.lifecycle import Lifecycle, Settings, fold, fold_game
from torres_service.principals import key_digest

ROOT = Path(__file__).resolve().parents[1]
MIGRATIONS = ROOT / "infra" / "migrations"
ADMIN_URL = os.environ.get("TEST_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/postgres")
API_KEY = "bench-key"  # the service key of every server this benchmark starts
#: How much longer a timed slice waits for its first operation on a machine that gave it no time: a slice that
#: counted nothing measured no rate (a zero would void the ratio it enters), so it lasts until it has one.
GIVE_UP = 30.0


@contextlib.contextmanager
def throwaway_database(prefix: str) -> Iterator[str]:
    """A uniquely named database on the PostgreSQL server of ``TEST_DATABASE_URL``, dropped afterwards."""
    name = f"{prefix}_{os.getpid()}"
    with psycopg.connect(ADMIN_URL, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield ADMIN_URL.rpartition("/")[0] + "/" + name
    finally:
        with psycopg.connect(ADMIN_URL, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def report(name: str, value: float, unit: str, target: str = "") -> None:
    print(f"{name:<58} {value:>10.2f} {unit:<10} {target}", flush=True)


# -- append latency ---------------------------------------------------------------------------

def new_bench_game(store: PostgresEventStore) -> str:
    game_id = str(uuid.uuid4())
    record = GameRecord(game_id, "", "rio_grande", False, {}, [{"seat": 0, "kind": "human"}])
    store.create_game(record, GameSecret(1, [None]), [NewEvent("game_created", {})], f"create:{game_id}")
    return game_id


def append_loop(store: PostgresEventStore, game_id: str, count: int, latencies: list[float],
                interval: float = 0.0) -> None:
    """Append ``count`` events to one game; with ``interval`` > 0, one every ``interval`` seconds."""
    summary = {"stage": "turn", "phase": 1, "round": 1, "to_move": 0, "scores": [0, 0], "winner": None}
    next_at = time.perf_counter() + random.random() * interval
    for version in range(1, count + 1):
        if interval:
            time.sleep(max(0.0, next_at - time.perf_counter()))
            next_at += interval
        event = NewEvent("action_applied", {"seat": 0, "action": {"type": "move_knight", "from": "C3", "to": "C4"}})
        started = time.perf_counter()
        store.append(game_id, version, [event], f"c{version}", AppendOptions(fingerprint="f", summary=summary))
        latencies.append(time.perf_counter() - started)


def concurrent_appends(
    store: PostgresEventStore, games: int, per_game: int, interval: float
) -> tuple[list[float], float]:
    ids = [new_bench_game(store) for _ in range(games)]
    lists: list[list[float]] = [[] for _ in ids]
    threads = [threading.Thread(target=append_loop, args=(store, g, per_game, lat, interval))
               for g, lat in zip(ids, lists, strict=True)]
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return [x for lat in lists for x in lat], time.perf_counter() - started


def bench_appends(url: str, per_game: int, games: int, rate: float) -> None:
    store = PostgresEventStore(url, min_size=2, max_size=16, migrations_dir=MIGRATIONS)
    try:
        single: list[float] = []
        append_loop(store, new_bench_game(store), 30, [])  # warm up
        started = time.perf_counter()
        append_loop(store, new_bench_game(store), per_game * 4, single)
        elapsed = time.perf_counter() - started
        report("append latency p50, one game", pct(single, 0.5) * 1e3, "ms")
        report("append latency p99, one game", pct(single, 0.99) * 1e3, "ms", "(target < 10 ms)")
        report("appends/s, one game (sequential)", len(single) / elapsed, "appends/s")

        merged, elapsed = concurrent_appends(store, games, per_game, 1 / rate)
        label = f"{games} games x {rate:g}/s"
        report(f"append latency p50, {label} (paced)", pct(merged, 0.5) * 1e3, "ms")
        report(f"append latency p99, {label} (paced)", pct(merged, 0.99) * 1e3, "ms", "(target < 10 ms)")
        merged, elapsed = concurrent_appends(store, games, per_game, 0.0)
        report(f"appends/s, {games} concurrent games (saturated, 16 connections)", len(merged) / elapsed,
               "appends/s")
        report(f"append latency p50, {games} games saturated (incl. pool queueing)", pct(merged, 0.5) * 1e3, "ms")
        report(f"append latency p99, {games} games saturated (incl. pool queueing)", pct(merged, 0.99) * 1e3, "ms")
    finally:
        store.close()


# -- fold ---------------------------------------------------------------------------------------

def complete_game_events(players: int, seed: int) -> tuple[list[StoredEvent], int]:
    rng = random.Random(seed)
    game_seed = rng.getrandbits(128)
    seats = [{"seat": i, "kind": "human"} for i in range(players)]
    new: list[NewEvent] = [ev.game_created(edition="rio_grande", master=False, options={}, seats=seats, seed=game_seed)]
    state = initial_state(new[0].payload, game_seed)
    while not tr.is_over(state):
        action = rng.choice(tr.legal_actions(state))
        new.append(ev.action_applied(state.to_position()["to_move"], action))
        state = tr.apply(state, action)
    new.append(ev.game_ended(state, game_seed, Lifecycle(Settings(), tuple(s["kind"] for s in seats))))
    from datetime import UTC, datetime
    return stamp("bench", 1, GENESIS_HASH, new, "c", datetime.now(UTC)), game_seed


def timed(func: Callable[[], Any], repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        func()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def bench_fold(snapshot_every: int, repeat: int) -> None:
    for players in (2, 4):
        log, seed = complete_game_events(players, seed=players)
        full = timed(lambda log=log, seed=seed: fold(log, seed), repeat)
        cut = (len(log) // snapshot_every) * snapshot_every
        at_cut = fold_game(log[:cut], seed)
        assert at_cut is not None
        position, life = at_cut[0].to_position(), at_cut[1].to_json()  # what a snapshot row holds

        def from_snapshot(log: list[StoredEvent] = log, position: dict[str, Any] = position, cut: int = cut,
                          seed: int = seed, life: dict[str, Any] = life) -> None:
            fold_game(log[cut:], seed, (tr.from_position(position), Lifecycle.from_json(life)))

        report(f"fold complete {players}-player game ({len(log)} events), no snapshot", full * 1e3, "ms",
               "(target < 20 ms)")
        report(f"fold from snapshot + {len(log) - cut}-event tail (every {snapshot_every})",
               timed(from_snapshot, repeat) * 1e3, "ms")


# -- HTTP under gunicorn -----------------------------------------------------------------------

class Client:
    def __init__(self, port: int) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

    def call(self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None) -> tuple[int, Any]:
        # orjson: the load generator shares the server's 2 cores, so the less CPU it takes, the less it skews
        data = orjson.dumps(body) if body is not None else None
        hdrs = {"Content-Type": "application/json", **(headers or {})}
        for attempt in range(3):
            try:
                self.conn.request(method, path, body=data, headers=hdrs)
                response = self.conn.getresponse()
                return response.status, orjson.loads(response.read() or b"null")
            except (http.client.HTTPException, ConnectionError, OSError):
                self.conn.close()
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")


def drive_game(port: int, api_key: str, stop: threading.Event, accepted: list[int], latencies: list[float],
               seed: int) -> None:
    client = Client(port)
    try:
        play_games(client, api_key, stop, accepted, latencies, random.Random(seed))
    finally:
        client.conn.close()  # an open keep-alive connection would hold a gthread worker's graceful shutdown


def play_games(client: Client, api_key: str, stop: threading.Event, accepted: list[int], latencies: list[float],
               rng: random.Random) -> None:
    while not stop.is_set():
        status, game = client.call("POST", "/v1/games", {"seats": [{"kind": "human"}, {"kind": "human"}]},
                                   {"X-API-Key": api_key})
        assert status == 201, game
        gid, tokens = game["game_id"], [s["token"] for s in game["seats"]]
        seat, n, legal = 0, 0, None
        while not stop.is_set():
            auth = {"Authorization": f"Bearer {tokens[seat]}"}
            if not legal:  # a new turn (or the other seat's): ask; within a turn the 201 body tells
                status, legal = client.call("GET", f"/v1/games/{gid}/legal-actions", headers=auth)
                if not legal["actions"]:
                    seat, legal = (seat + 1) % 2, None
                    continue
            body = {"seat": seat, "action": rng.choice(legal["actions"]), "expected_version": legal["version"],
                    "command_id": f"{gid}-{n}"}
            started = time.perf_counter()
            status, result = client.call("POST", f"/v1/games/{gid}/actions", body, auth)
            latencies.append(time.perf_counter() - started)
            assert status == 201, result
            accepted[0] += 1
            n += 1
            if result["events"][-1]["type"] == "game_ended":
                break
            legal = {"version": result["version"], "actions": result["legal_actions"]} \
                if result["legal_actions"] else None
            if legal is None:
                seat = (seat + 1) % 2


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU seconds of the given processes (Linux /proc), for a per-action cost figure."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        except (OSError, IndexError, ValueError):
            continue
    return total / os.sysconf("SC_CLK_TCK")


def process_tree(root: int) -> list[int]:
    children = subprocess.run(["pgrep", "-P", str(root)], capture_output=True, text=True).stdout.split()
    return [root, *map(int, children)]


def postgres_pids() -> list[int]:
    return [int(p) for p in subprocess.run(["pgrep", "-x", "postgres"], capture_output=True, text=True).stdout.split()]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def gunicorn_server(url: str, workers: int, threads: int, worker_class: str = "gevent",
                    overrides: dict[str, str] | None = None, root: Path = ROOT) -> Iterator[tuple[int, int]]:
    """gunicorn started with the production configuration (``infra/gunicorn.conf.py`` of ``root``: this checkout,
    or another one's with ``--against``), with its worker class (gevent) or, for comparison, the former
    ``gthread`` with ``threads`` threads per worker, and ``overrides`` of its environment; yields (port, pid)."""
    port = free_port()
    env = {**os.environ, "DATABASE_URL": url, "TORRES_API_KEY": API_KEY, "TORRES_ADMIN_KEY": "bench-admin",
           "LOG_LEVEL": "WARNING", "TORRES_AI_DRIVER": "none", "TORRES_MIGRATIONS_DIR": str(MIGRATIONS),
           "WEB_CONCURRENCY": str(workers), "GUNICORN_WORKER_CLASS": worker_class,
           "GUNICORN_BIND": f"127.0.0.1:{port}", "GUNICORN_LOG_LEVEL": "warning"}
    extra = []
    if worker_class == "gthread":  # the former configuration: one pool connection per thread, all it can use
        extra = ["--threads", str(threads)]
        env["DB_POOL_MAX"] = os.environ.get("DB_POOL_MAX") or str(threads)
    env.update(overrides or {})
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "-c", str(root / "infra" / "gunicorn.conf.py"), *extra,
         "torres_game.wsgi:app"],
        env=env, stdout=subprocess.DEVNULL, start_new_session=True, cwd=root,
    )
    try:
        for _ in range(100):
            try:
                if Client(port).call("GET", "/readyz")[0] == 200:
                    break
            except OSError:
                pass
            time.sleep(0.1)
        else:
            raise RuntimeError("gunicorn did not become ready")
        yield port, server.pid
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(60)  # past graceful_timeout (35 s), so a slow drain is seen as one, not as a crash


def http_load(port: int, server_pid: int, games: int, duration: float, warm_up: float) -> dict[str, Any]:
    """``games`` clients each playing games as fast as the server answers, for ``warm_up`` s and then ``duration``
    s measured (longer if no action was accepted in it, see :data:`GIVE_UP`): accepted actions/s, POST latencies,
    and CPU per action of the server, PostgreSQL and this client."""
    stop = threading.Event()
    accepted = [[0] for _ in range(games)]
    latencies: list[list[float]] = [[] for _ in range(games)]
    drivers = [threading.Thread(target=drive_game, args=(port, API_KEY, stop, accepted[i], latencies[i], i),
                                daemon=True) for i in range(games)]
    for d in drivers:
        d.start()
    time.sleep(warm_up)
    server_pids, db_pids = process_tree(server_pid), postgres_pids()
    cpu_before = (cpu_seconds(server_pids), cpu_seconds(db_pids), time.process_time())
    start_count, started = sum(a[0] for a in accepted), time.perf_counter()
    time.sleep(duration)
    longest = started + duration + GIVE_UP
    while not (total := sum(a[0] for a in accepted) - start_count) and time.perf_counter() < longest:
        time.sleep(0.05)  # nothing accepted yet: the slice lasts until its first action (see GIVE_UP)
    elapsed = time.perf_counter() - started
    cpu_after = (cpu_seconds(server_pids), cpu_seconds(db_pids), time.process_time())
    stop.set()
    for d in drivers:
        d.join(30)
    per_action = [(after - before) / max(total, 1) * 1e3 for before, after in zip(cpu_before, cpu_after, strict=True)]
    return {"rate": total / elapsed, "latencies": [x for lat in latencies for x in lat], "cpu": per_action}


def bench_http(url: str, games: int, duration: float, workers: int, threads: int, backend: str = "postgres",
               worker_class: str = "gevent") -> float:
    """HTTP load on one server; prints the figures and returns the accepted actions per second."""
    with gunicorn_server(url, workers, threads, worker_class) as (port, pid):
        result = http_load(port, pid, games, duration, warm_up=min(3.0, duration / 5))
    label = f"{backend}, {workers}x{threads} gthread" if worker_class == "gthread" else \
        f"{backend}, {workers} {worker_class} workers"
    report(f"HTTP accepted actions/s, {games} concurrent games ({label})", result["rate"], "actions/s",
           "(target >= 500)")
    report("HTTP POST /actions latency p50 (client side)", pct(result["latencies"], 0.5) * 1e3, "ms")
    report("HTTP POST /actions latency p99 (client side)", pct(result["latencies"], 0.99) * 1e3, "ms")
    for name, value in zip(("gunicorn workers", "PostgreSQL (all backends)", "load-generating client"),
                           result["cpu"], strict=True):
        report(f"CPU per accepted action: {name}", value, "ms")
    return float(result["rate"])


def compare_worker_classes(url: str, slices: int, slice_seconds: float, games: int, workers: int,
                           threads: int, classes: tuple[str, str] = ("gevent", "gthread"),
                           overrides: tuple[dict[str, str], dict[str, str]] = ({}, {}),
                           roots: tuple[Path, Path] = (ROOT, ROOT)) -> float:
    """gevent (production) against the former gthread, side by side: both servers run at once and the load moves
    between them in short slices, ABBA (A, B, B, A, ...), so that the machine's drift -- which moves one
    configuration's figure by more than the difference measured, from 287 to 811 actions/s within minutes here
    -- is the same for the two slices of a pair. The figure is the median of the pairs' ratios. Two identical
    servers (``classes`` = ("gevent", "gevent"), an A/A test) came out 0.85 apart in one run, so halfway the
    servers are restarted in the other order and on new ports: whatever favours the first- or second-started
    server then counts for both configurations alike. (The idle server costs nearly nothing; both listen for
    the other's appends alike.) ``overrides`` (environment of A, of B) compares two settings of one class, and
    ``roots`` two checkouts (``--against``)."""
    first, second = names = tuple(f"{cls} ({side}{''.join(f' {k}={v}' for k, v in env.items())})"
                                  for cls, side, env in zip(classes, "AB", overrides, strict=True))
    rates: dict[str, list[float]] = {name: [] for name in names}
    cpu: dict[str, list[list[float]]] = {name: [] for name in names}
    ratios: list[float] = []
    settings = dict(zip(names, zip(classes, overrides, roots, strict=True), strict=True))
    halves = [(0, (slices + 1) // 2, names), ((slices + 1) // 2, slices, names[::-1])]
    for begin, end, start_order in (half for half in halves if half[0] < half[1]):
        started_first = "A" if start_order[0] == first else "B"
        with contextlib.ExitStack() as stack:
            servers = {name: stack.enter_context(gunicorn_server(url, workers, threads, *settings[name]))
                       for name in start_order}
            for pair in range(begin, end):
                for name in names if pair % 2 == 0 else names[::-1]:
                    result = http_load(*servers[name], games, slice_seconds, warm_up=1.0)
                    rates[name].append(result["rate"])
                    cpu[name].append(result["cpu"])
                if not rates[second][-1]:  # a void pair, said as such rather than as a division by zero
                    raise SystemExit(f"{second} accepted no action in {slice_seconds + GIVE_UP} s: the comparison is "
                                     "void (the server stalled, or the machine gave it no time)")
                ratios.append(rates[first][-1] / rates[second][-1])
                print(f"pair {pair + 1:>2} ({started_first} started first): {first} "
                      f"{rates[first][-1]:7.1f}, {second} {rates[second][-1]:7.1f} actions/s, "
                      f"ratio {ratios[-1]:.3f}", flush=True)
    for name in names:
        threaded = f", {workers}x{threads}" if name.startswith("gthread") else f", {workers} workers"
        report(f"median HTTP accepted actions/s, {name}{threaded}", statistics.median(rates[name]), "actions/s")
        for part, label in enumerate(("gunicorn", "PostgreSQL", "load generator")):
            report(f"median {label} CPU per accepted action, {name}", statistics.median(c[part] for c in cpu[name]),
                   "ms")
    quartiles = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else [ratios[0]] * 3
    report(f"ratio {classes[0]} / {classes[1]}, median of the pairs", statistics.median(ratios), "x",
           "(target >= 1)" if classes == ("gevent", "gthread") and overrides == ({}, {}) else "")
    print(f"  pairs' ratios: quartiles {quartiles[0]:.3f} / {quartiles[2]:.3f}, A ahead in "
          f"{sum(r >= 1 for r in ratios)} of {len(ratios)} pairs")
    return statistics.median(ratios)


def limits_on_and_off(storage: str, shared: str) -> tuple[dict[str, str], dict[str, str]]:
    """The environments of the two servers of ``--compare-limits``. On: every request is counted in every class it
    has (address, seat token; the bench's key is the single-key default's, our own services' key, so its game
    creations are not limited) and every stream against its caps, at the production defaults except that loopback is not
    exempt and the address limit is above what 50 games from one address send; ``shared``: the classes counted in
    ``storage`` (the others in each process). Off: no hook installed at all."""
    on = {"TORRES_RATELIMIT_EXEMPT": "", "TORRES_RATELIMIT_ADDRESS": "1000000 per 10 seconds",
          "TORRES_RATELIMIT_STORAGE_URI": storage, "TORRES_RATELIMIT_SHARED": shared}
    return on, {"TORRES_RATELIMIT_ENABLED": "0"}


@contextlib.contextmanager
def checkout_of(rev: str) -> Iterator[Path]:
    """``rev`` of this repository exported into a temporary folder (``git archive``: no worktree to clean up)."""
    with tempfile.TemporaryDirectory(prefix="torres-against-") as folder:
        tar = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", rev], check=True,
                             capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", folder], input=tar, check=True)
        yield Path(folder)


def packages_of(old: Path) -> str:
    """A PYTHONPATH for ``old``'s game service and the libraries it imports, in whichever layout that revision
    has (the service kit and the audit library under ``services/`` or under ``shared/``), so that another
    revision's code never meets this checkout's libraries; the rules engine stays this environment's."""
    places = ("services/game", "services/common", "services/audit", "shared/service", "shared/audit", "shared/online")
    return os.pathsep.join(str(old / place) for place in places if (old / place).is_dir())


def against(old: Path, url: str, storage: str, tenants_file: str, *, plain: bool = False,
            shared: str = "address,tenant,player") -> tuple[dict[str, str], dict[str, str]]:
    """The environments of ``--against``'s two servers. A, this checkout as a portal's deployment runs it: the
    bench's key is a tenant's key from a tenants file (so game creations are scoped and counted
    against the tenant), every seat token a row with an expiry (read once, then forgotten on a change's notice),
    and the rate limits and stream caps of :func:`limits_on_and_off` on, the ``shared`` classes counted in
    ``storage``. B: ``old``'s game service and service kit
    on its own database and migrations; both import the rules engine from this
    environment, so the two servers run the same compiled engine.

    With ``plain``, A runs at its defaults too (the single key, loopback exempt from the limits): the two
    checkouts' own costs with the same settings, for a change that is not about the trust boundary."""
    on, _ = limits_on_and_off(storage, shared)
    return ({} if plain else {**on, "TORRES_TENANTS_FILE": tenants_file},
            {"PYTHONPATH": packages_of(old), "DATABASE_URL": url,
             "TORRES_MIGRATIONS_DIR": str(old / "infra" / "migrations")})


def tenants_document(folder: str) -> str:
    """A tenants file whose one tenant holds the bench's key (scope ``games``: create and play its games)."""
    path = os.path.join(folder, "tenants.json")
    Path(path).write_text(orjson.dumps({"tenants": {"bench": {"keys": [
        {"id": "bench", "sha256": key_digest(API_KEY), "scopes": ["games"]}]}}}).decode())
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--games", type=int, default=50, help="concurrent games (appends and HTTP)")
    parser.add_argument("--http-games", default="", help="comma list of extra HTTP concurrency levels, e.g. 4,16")
    parser.add_argument("--duration", type=float, help="seconds of HTTP load (default 20, with --quick 8)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--rate", type=float, default=4.0, help="appends/s per game in the paced run")
    parser.add_argument("--only", choices=("append", "fold", "http"))
    parser.add_argument("--compare-worker-classes", type=int, default=0, metavar="PAIRS",
                        help="HTTP only: run gevent (production) and the former gthread worker class side by side, "
                             "moving the load between them for PAIRS pairs of slices, and print the median ratio")
    parser.add_argument("--slice-seconds", type=float, default=5.0, help="measured seconds of one comparison slice")
    parser.add_argument("--classes", default="gevent,gthread",
                        help="the two worker classes compared (gevent,gevent measures the comparison's own noise)")
    parser.add_argument("--env-a", action="append", default=[], metavar="KEY=VALUE",
                        help="an environment setting of server A only (repeatable), e.g. DB_POOL_MAX=8")
    parser.add_argument("--env-b", action="append", default=[], metavar="KEY=VALUE",
                        help="an environment setting of server B only (repeatable)")
    parser.add_argument("--compare-limits", type=int, default=0, metavar="PAIRS",
                        help="HTTP only: the game service with its rate limits and stream caps on, every class "
                             "counted (loopback not exempt, the address limit above the load), against the same "
                             "server with them off (TORRES_RATELIMIT_ENABLED=0), side by side in PAIRS pairs of "
                             "slices; prints the median ratio on / off")
    parser.add_argument("--limits-storage", default="memory://", metavar="URI",
                        help="with --compare-limits: where the limited server counts (memory://, the embedded "
                             "default; or a redis:// URL, the scale-out configuration)")
    parser.add_argument("--limits-shared", default="address,tenant,player", metavar="CLASSES",
                        help="with --compare-limits or --against: the classes counted in --limits-storage "
                             "(TORRES_RATELIMIT_SHARED; the others in each process's memory)")
    parser.add_argument("--against", metavar="REV",
                        help="HTTP only: this checkout with tenants, seat-token rows and rate limits on (counted in "
                             "--limits-storage) against REV's game service (e.g. d33f9e6, before tenants and "
                             "seat-token rows), side by side in --pairs pairs of slices; prints the median ratio "
                             "this / REV")
    parser.add_argument("--pairs", type=int, default=8, help="with --against: pairs of slices")
    parser.add_argument("--plain", action="store_true",
                        help="with --against: this checkout at its defaults too (no tenants file, loopback exempt "
                             "from the limits), to compare two checkouts' own costs with the same settings")
    parser.add_argument("--http-sqlite", action="store_true",
                        help="also run the HTTP load against the embedded SQLite backend")
    args = parser.parse_args()
    per_game = 40 if args.quick else 100
    duration = args.duration if args.duration is not None else 8.0 if args.quick else 20.0
    with throwaway_database("torres_game_bench") as url:
        store = PostgresEventStore(url, migrations_dir=MIGRATIONS)
        store.migrate()
        store.close()
        load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
        print(f"# {os.cpu_count()} CPUs, load average before the run: {load} (a shared machine: other loads count)")
        print(f"{'figure':<58} {'value':>10} unit       target")
        if args.only in (None, "append"):
            bench_appends(url, per_game, args.games, args.rate)
        if args.only in (None, "fold"):
            bench_fold(snapshot_every=50, repeat=5 if args.quick else 15)
        if args.compare_limits:
            ratio = compare_worker_classes(url, args.compare_limits, args.slice_seconds, args.games, args.workers,
                                           args.threads, ("gevent", "gevent"),
                                           limits_on_and_off(args.limits_storage, args.limits_shared))
            report(f"ratio rate limits on ({args.limits_storage}, shared: {args.limits_shared}) / off, median of "
                   "the pairs", ratio, "x",
                   "(target >= 0.95)")
            print(f"# load average after the run: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
            return 0
        if args.against:
            with checkout_of(args.against) as old, throwaway_database("torres_game_bench_against") as old_url, \
                    tempfile.TemporaryDirectory() as folder:
                ratio = compare_worker_classes(url, args.pairs, args.slice_seconds, args.games, args.workers,
                                               args.threads, ("gevent", "gevent"),
                                               against(old, old_url, args.limits_storage, tenants_document(folder),
                                                       plain=args.plain, shared=args.limits_shared),
                                               (ROOT, old))
            setup = "both at their defaults" if args.plain else \
                f"tenants, seat-token rows, limits in {args.limits_storage}, shared: {args.limits_shared}"
            report(f"ratio this checkout ({setup}) / {args.against}, median of the pairs", ratio, "x",
                   "(within 3 %)" if args.plain else "(target >= 0.95)")
            print(f"# load average after the run: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
            return 0
        if args.compare_worker_classes:
            first, second = args.classes.split(",")
            env_a, env_b = (dict(item.split("=", 1) for item in side) for side in (args.env_a, args.env_b))
            compare_worker_classes(url, args.compare_worker_classes, args.slice_seconds, args.games, args.workers,
                                   args.threads, (first, second), (env_a, env_b))
            return 0
        if args.only in (None, "http"):
            bench_http(url, args.games, duration, args.workers, args.threads)
            for extra in filter(None, args.http_games.split(",")):
                bench_http(url, int(extra), duration, args.workers, args.threads)
            if args.http_sqlite:
                with tempfile.TemporaryDirectory() as folder:
                    bench_http(f"sqlite:///{folder}/bench.sqlite3", args.games, duration, args.workers, args.threads,
                               backend="sqlite")
    return 0


if __name__ == "__main__":
    sys.exit(main())
