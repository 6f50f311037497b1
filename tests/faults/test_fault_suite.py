"""The fault suite (``make faults``): the production processes on HA PostgreSQL and Redis under a steady load while a
nemesis breaks the primary, the Redis master and the game service, then a checker reads everything back.

Stack, all in a network namespace the suite makes (infra/ha/isolation.py: only loopback, removed with its last
process): ``infra/ha/pg_ha.py`` (etcd, 3 Patroni nodes, HAProxy), ``infra/ha/redis_ha.py`` (master, 2 replicas, 3
Sentinels), ``infra/local_cluster.py``'s processes on them (2 game replicas under gunicorn, a Celery AI worker, the
sweeper, the webhook worker, the matchmaking API, a matcher, the ratings consumer) and a webhook endpoint.

Load (tests/faults/load.py): human games over HTTP (each action retried with its command id on 503 or a broken
connection, against either replica), games against an AI seat played by the Celery worker, each game followed by
an SSE and a WebSocket watcher and resigned after a few moves so the transparency log integrates it; pairs of
players through the matchmaker, playing the game they are put in; webhooks to the endpoint; a reader fetching the
signed checkpoint twice a second.

Nemesis: ``TORRES_FAULTS_PG`` PostgreSQL faults in turn -- SIGKILL of the primary node after its standbys lagged
for ``REPLICATION_LAG`` seconds, a primary hung by SIGSTOP
until Patroni fails over (then resumed), a switchover, a network partition of the primary (iptables in the
suite's namespace) until another is promoted (then healed) -- ``TORRES_FAULTS_REDIS`` SIGKILLs of the Redis master
and ``TORRES_FAULTS_ROLLING`` rolling restarts of every game-service process, shuffled, each once the stand-ins
are healthy again.

Checker (tests/faults/checker.py): every action answered 2xx is in its game's log exactly once, at the version it
was answered with; versions contiguous; ``/verify`` ok on every game; every AI turn played once; every watcher saw
every version once, in order; no player in two games; every webhook written delivered at least once; every
checkpoint seen during the run consistent with the final one (RFC 9162 consistency proofs, torres_audit.monitor),
so no signed checkpoint names a leaf that is gone. Per fault kind: the window of refused requests (p50, max seconds
from the fault to the last refusal) and the time to full service. ``TORRES_FAULTS_ASYNC=1`` runs the same with
asynchronous replication, and the checker finds the actions each lagging kill lost (docs/operations.md, "Failover").
"""

from __future__ import annotations

import json
import os
import random
import statistics
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import isolation
import pg_ha
import pytest
import redis_ha

from torres_audit import monitor
from torres_audit.note import Signer, Verifier, open_checkpoint

from . import checker, load
from .load import Client, Record

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "infra"))
from local_cluster import Cluster

pytestmark = [pytest.mark.timeout(3600), pytest.mark.skipif(
    os.environ.get("TORRES_FAULTS") != "1", reason="the fault suite runs under `make faults` (TORRES_FAULTS=1)")]

PG_FAULTS = int(os.environ.get("TORRES_FAULTS_PG", "20"))
REDIS_FAULTS = int(os.environ.get("TORRES_FAULTS_REDIS", "5"))
ROLLING_RESTARTS = int(os.environ.get("TORRES_FAULTS_ROLLING", "2"))
SYNCHRONOUS = os.environ.get("TORRES_FAULTS_ASYNC") != "1"
#: Clients playing human games, and of them how many against an AI seat; pairs of players through matchmaking.
PLAYERS, AI_PLAYERS, MATCHED_PAIRS = int(os.environ.get("TORRES_FAULTS_PLAYERS", "3")), 1, 1
#: The longest a client may wait for any one answer (DB_POOL_TIMEOUT 5 s, HAProxy's cut ~2 s, gunicorn's own).
REQUEST_BOUND = 10.0
#: Seconds the standbys lag (their WAL receivers stopped) before a primary is killed: on loopback replication is
#: too fast for a kill to find anything unreplicated, over a real network it is not. Asynchronous replication loses
#: what the primary acknowledged in that span; synchronous replication acknowledges none of it.
REPLICATION_LAG = 1.0
FAULT_KINDS = ("pg-kill", "pg-hang", "pg-switchover", "pg-partition")
WEBHOOK_SECRET = "faults-webhook-secret"


@dataclass
class Fault:
    kind: str
    started: float
    healthy: float = 0.0


def read_checkpoints(urls: list[str], keys: list[Verifier], record: Record, stop: threading.Event) -> None:
    while not stop.wait(0.5):
        try:
            text, checkpoint = monitor.fetch_checkpoint(random.choice(urls), keys)
        except (monitor.MonitorError, monitor.Unreachable):
            continue  # refused meanwhile (503, a replica restarting) or no checkpoint yet
        with record.lock:
            record.checkpoints.setdefault(checkpoint.size, text)


def nemesis(pg: pg_ha.PgHa, rds: redis_ha.RedisHa, cluster: Cluster, faults: list[Fault]) -> None:
    schedule = [FAULT_KINDS[i % len(FAULT_KINDS)] for i in range(PG_FAULTS)] + ["redis-kill"] * REDIS_FAULTS \
        + ["rolling-restart"] * ROLLING_RESTARTS
    random.Random().shuffle(schedule)
    for kind in schedule:
        time.sleep(random.uniform(1, 3))
        fault = Fault(kind, time.monotonic())
        faults.append(fault)
        if kind == "pg-kill":  # the server is lost, its standbys lagging: it stays down until another took over
            old = pg.wait_for_leader()
            with pg.standbys_stalled(old):
                time.sleep(REPLICATION_LAG)
                pg.kill(old)
            pg.wait_for_leader(other_than=old, timeout=60)
        elif kind == "pg-hang":
            old = pg.wait_for_leader()
            pg.freeze(old)
            try:
                pg.wait_for_leader(other_than=old, timeout=60)
            finally:
                pg.thaw(old)
        elif kind == "pg-switchover":
            pg.switchover()
        elif kind == "pg-partition":
            old = pg.wait_for_leader()
            pg.partition(old)
            try:
                pg.wait_for_leader(other_than=old, timeout=60)
            finally:
                pg.heal(old)
        elif kind == "redis-kill":
            old_master = rds.master()
            rds.kill_master()
            rds.restart(old_master)
        else:
            cluster.rolling_restart()
        for node in pg.nodes:
            if node.stopped:
                pg.restart(node)
        pg.wait_healthy(180)
        rds.wait_healthy()
        fault.healthy = time.monotonic()


#: Refusals closer than this (seconds) are one burst: the outage a fault caused, clients retrying all through it.
BURST_GAP = 3.0


def windows(record: Record, faults: list[Fault]) -> dict[str, dict[str, float]]:
    """Per fault kind: the window of refused requests, from the fault to the end of the burst of refusals it
    caused (p50, max seconds); the time to full service (to the first answer after that burst); refusals after the
    burst, before the next fault (stray: each a single attempt, retried at once); and the longest a client's
    request took from its first try to its answer, retries included (what a player waits)."""
    found: dict[str, list[tuple[float, float, int, float]]] = {}
    faults = sorted(faults, key=lambda f: f.started)
    for i, fault in enumerate(faults):
        until = faults[i + 1].started if i + 1 < len(faults) else float("inf")
        refused = sorted((c for c in record.calls if not c.ok and fault.started <= c.started < until),
                         key=lambda c: c.started)
        burst_end, stray = fault.started, 0
        for call in refused:
            if stray == 0 and call.started <= burst_end + BURST_GAP:
                burst_end = max(burst_end, call.ended)
            else:
                stray += 1
        served = min((c.ended for c in record.calls if c.ok and c.started >= burst_end), default=burst_end)
        waited = max((end - begin for begin, end in record.delays if fault.started <= begin < until), default=0.0)
        found.setdefault(fault.kind, []).append((burst_end - fault.started, served - fault.started, stray, waited))
    return {kind: {"faults": len(v), "refused_p50_s": statistics.median(w for w, *_ in v),
                   "refused_max_s": max(w for w, *_ in v), "full_service_max_s": max(s for _, s, _, _ in v),
                   "stray_refusals": sum(n for _, _, n, _ in v), "client_wait_max_s": max(c for *_, c in v)}
            for kind, v in found.items()}


def refusals(record: Record, faults: list[Fault], started: float) -> list[dict[str, Any]]:
    """Every refused attempt, seconds into the run, with the fault before it: what the windows are made of."""
    kinds = sorted(faults, key=lambda f: f.started)
    out = []
    for call in sorted((c for c in record.calls if not c.ok), key=lambda c: c.started):
        before = [f for f in kinds if f.started <= call.started]
        out.append({"at_s": round(call.started - started, 2), "took_s": round(call.ended - call.started, 2),
                    "status": call.status, "what": call.what,
                    "after": f"{before[-1].kind} +{call.started - before[-1].started:.1f} s" if before else ""})
    return out


def webhooks_written(portal: Client) -> dict[str, str]:
    """Every webhook the service wrote (delivery id -> game), from its delivery log."""
    written, after = {}, 0
    while True:
        page = portal.request("GET", "/v1/webhooks/deliveries", params={"after": after, "limit": 1000}).json()
        for delivery in page["deliveries"]:
            written[delivery["delivery_id"]] = delivery["game_id"]
        if not page["deliveries"]:
            return written
        after = page["next_after"]


def check(cluster: Cluster, keys: list[Verifier], record: Record, receiver: load.Receiver) -> list[str]:
    """Every problem the run left behind, in words (empty: the run passed)."""
    urls = cluster.game_urls
    problems: list[str] = [f"a watcher failed: {exc!r}" for exc in record.errors] + record.surprises
    client = Client(urls, Record(), headers={"X-Admin-Key": cluster.admin_key})
    for game_id in sorted(record.games):
        answer = client.request("GET", f"/v1/games/{game_id}/events", params={"limit": 1000})
        if answer.status_code == 404:  # its creation was acknowledged
            problems.append(f"{game_id}: the game is gone, with {len(record.acked[game_id])} acknowledged actions")
            continue
        events = answer.json()["events"]
        problems += checker.log_problems(game_id, events, record.acked[game_id])
        problems += checker.ai_turn_problems(game_id, events)
        final = events[-1]["version"] if events else 0
        for watch in record.watches:
            if watch.game_id == game_id:
                problems += checker.watcher_problems(watch.name, watch.seen, final, watch.ended)
        verified = client.request("GET", f"/v1/games/{game_id}/verify").json()
        if not verified.get("ok"):
            problems.append(f"{game_id}: /verify: {verified}")
    problems += checker.two_games_problems(record.games_of_player)
    portal = Client(urls, Record(), headers={"X-API-Key": cluster.api_key})
    deadline = time.monotonic() + 60  # the worker's last batch, and retries of posts a fault cut
    while checker.webhook_problems(written := webhooks_written(portal), receiver.delivered) and \
            time.monotonic() < deadline:
        time.sleep(1)
    problems += checker.webhook_problems(written, receiver.delivered)
    _, final_checkpoint = monitor.fetch_checkpoint(urls[0], keys)
    for size, text in sorted(record.checkpoints.items()):
        seen, _ = open_checkpoint(text, keys)
        try:
            monitor.check_consistent(urls[0], seen, final_checkpoint, f"checkpoint {size} seen during the run")
        except monitor.MonitorError as exc:
            problems.append(f"transparency log: {exc}")
    return problems


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[tuple[pg_ha.PgHa, redis_ha.RedisHa, Cluster, Signer, load.Receiver]]:
    missing = pg_ha.missing_tools() + pg_ha.partition_tools_missing() + redis_ha.missing_tools()
    if missing:
        pytest.skip(f"HA stand-ins not reachable: missing {', '.join(missing)}")
    with isolation.network_namespace():  # everything below, and the test's threads, see this namespace only
        pg, rds = pg_ha.PgHa(synchronous=SYNCHRONOUS), redis_ha.RedisHa()
        signer = Signer.generate("faults.torres.invalid/log")  # the checkpoints' (records have their own key)
        receiver = load.Receiver()
        cluster: Cluster | None = None
        try:
            pg.start()
            rds.start()
            cluster = Cluster(pg.url, rds.url, f"{rds.url}?db=1", tmp_path / "run", game_replicas=2, ai_workers=1,
                              matchers=1, web_concurrency=1, extra_env={
                                  "TORRES_LOG_SIGNING_KEY": signer.skey(), "TORRES_AI_MEDIUM": "random",
                                  "TORRES_AI_HARD": "random", "TORRES_WEBHOOK_URL": receiver.url,
                                  "TORRES_WEBHOOK_SECRET": WEBHOOK_SECRET,
                                  "TORRES_WEBHOOK_ALLOW_NETWORKS": "127.0.0.0/8", "MM_REDIS_WAIT_REPLICAS": "1",
                                  isolation.ENV: str(pg.base)})  # swept with the cluster if this run is killed
            cluster.start()
            yield pg, rds, cluster, signer, receiver
        finally:
            if cluster is not None:
                for proc in cluster.procs.values():
                    proc.kill()
            receiver.stop()
            rds.stop(keep_logs=tmp_path / "redis-logs")  # the servers' and sentinels', for a failed run
            pg.stop(keep_logs=tmp_path / "pg-logs")  # Patroni's and PostgreSQL's, for a failed run


def test_the_stack_survives_the_loss_of_any_one_server(
        stack: tuple[pg_ha.PgHa, redis_ha.RedisHa, Cluster, Signer, load.Receiver]) -> None:
    pg, rds, cluster, signer, receiver = stack
    urls, keys, record, stop = cluster.game_urls, [signer.verifier()], Record(), threading.Event()
    faults: list[Fault] = []
    errors: list[BaseException] = []

    def guarded(target: Any, *args: Any, **kwargs: Any) -> threading.Thread:
        def run() -> None:
            try:
                target(*args, **kwargs)
            except BaseException as exc:  # the test thread reports it
                errors.append(exc)
                stop.set()
        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        return thread

    def portal() -> Client:
        return Client(urls, record, headers={"X-API-Key": cluster.api_key})

    load_threads = [guarded(load.play, portal(), cluster.api_key, stop, against_ai=i < AI_PLAYERS)
                    for i in range(PLAYERS)]
    load_threads += [guarded(load.matchmaking, Client([cluster.matchmaking_url], record), portal(),
                             cluster.player_token_secret, stop) for _ in range(MATCHED_PAIRS)]
    reader = guarded(read_checkpoints, urls, keys, record, stop)
    started = time.monotonic()
    try:
        nemesis(pg, rds, cluster, faults)
        time.sleep(5)  # everything settles: the last games end, the sequencer integrates them
    finally:
        stop.set()
        for thread in (*load_threads, reader):
            thread.join(load.RETRY_FOR + 60)
    assert not errors, errors
    time.sleep(3)
    problems = check(cluster, keys, record, receiver)
    kinds = [f.kind for f in faults]
    figures = {
        "date": time.strftime("%Y-%m-%d", time.gmtime()), "synchronous": SYNCHRONOUS,
        "run_s": round(time.monotonic() - started), "games": len(record.games),
        "pg_faults": sum(k.startswith("pg-") for k in kinds), "redis_faults": kinds.count("redis-kill"),
        "rolling_restarts": kinds.count("rolling-restart"),
        "acknowledged_actions": sum(len(v) for v in record.acked.values()), "requests": len(record.calls),
        "refused_requests": sum(not c.ok for c in record.calls),
        "answered_500": sum(c.status == 500 for c in record.calls),
        "watchers": len(record.watches), "watcher_reconnects": sum(w.reconnects for w in record.watches),
        "players_matched": record.tickets_matched, "webhooks_delivered": len(receiver.delivered),
        "webhook_posts": receiver.posts, "checkpoints_seen": len(record.checkpoints),
        "longest_request_s": round(max(c.took for c in record.calls), 2),
        "longest_request": max(record.calls, key=lambda c: c.took).what,
        "windows": {k: {m: round(x, 2) for m, x in v.items()} for k, v in windows(record, faults).items()},
        "problems": problems, "problem_count": len(problems),
        "faults": [{"kind": f.kind, "at_s": round(f.started - started, 1), "healthy_after_s":
                    round(f.healthy - f.started, 1)} for f in faults],
        "refusals": refusals(record, faults, started),
    }
    print(json.dumps({k: v for k, v in figures.items() if k not in ("faults", "refusals")}, indent=1))
    if os.environ.get("TORRES_FAULTS_REPORT"):  # where make faults keeps the figures
        Path(os.environ["TORRES_FAULTS_REPORT"]).write_text(json.dumps(figures, indent=1))
    assert not problems, problems
    assert figures["longest_request_s"] < REQUEST_BOUND
    # a failover's window; a rolling restart refuses only the attempts at the replica restarting (each retried on
    # the other at once) for as long as the whole restart takes, so what bounds it is a client's wait
    assert all(w["refused_max_s"] < 15 for k, w in figures["windows"].items() if k != "rolling-restart"), \
        figures["windows"]
    assert all(w["client_wait_max_s"] < 15 for w in figures["windows"].values()), figures["windows"]
    assert figures["answered_500"] == 0, "a request answered 500 (the matchmaker's are retried, and counted)"
    assert record.games_of_player and receiver.delivered and record.watches, "a part of the load never ran"
