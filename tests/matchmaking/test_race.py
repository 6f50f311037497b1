"""Three matcher PROCESSES, 1 000 tickets, cancels racing the matches; the real game service over HTTP.

Checked against the game service itself (the ground truth of who sits in which game): every ticket
is matched exactly once or still queued (or cancelled); no player sits in two games; no cancelled
player sits in any game; every matched ticket's game and seat are the ones the game service has.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import redis

from torres_matchmaking.config import Config
from torres_matchmaking.errors import TicketNotCancellable
from torres_matchmaking.ratings import RatingBook
from torres_matchmaking.store import Keys, Redis
from torres_matchmaking.tickets import TicketService

from .conftest import API_KEY, GameServer, set_rating

TICKETS = 1000
KEYS = Keys()
MATCHERS = 3


def _start_matchers(game_url: str, redis_url: str, cluster: bool) -> list[subprocess.Popen[bytes]]:
    env = {**os.environ, "REDIS_URL": redis_url, "REDIS_CLUSTER": str(int(cluster)), "GAME_SERVICE_URL": game_url,
           "GAME_SERVICE_API_KEY": API_KEY,
           "MM_TICK_SECONDS": "0.05", "MM_WINDOW_BASE": "3", "MM_WINDOW_GROWTH": "2", "LOG_LEVEL": "WARNING",
           "MM_CREATE_CONCURRENCY": "4"}
    return [subprocess.Popen([sys.executable, "-m", "torres_matchmaking", "matcher", "--no-ratings"], env=env)
            for _ in range(MATCHERS)]


def _stop(processes: list[subprocess.Popen[bytes]]) -> None:
    for p in processes:
        p.send_signal(signal.SIGTERM)
    for p in processes:
        assert p.wait(timeout=30) == 0


def _statuses(client: redis.Redis, ids: list[str]) -> Counter[str]:
    pipe = client.pipeline(transaction=False)
    for tid in ids:
        pipe.hget(KEYS.ticket(tid), "status")
    return Counter(pipe.execute())


def test_three_matchers_thousand_tickets_with_racing_cancels(backend: tuple[str, bool, Any], tmp_path: Path) -> None:
    """On one Redis and on a 3-master Redis Cluster: the three matchers divide the six pools between them."""
    redis_url, cluster, redis_client = backend
    server = GameServer(tmp_path / "race.sqlite3").start()
    config = Config(redis_url=redis_url, redis_cluster=cluster, log_level="WARNING")
    store = Redis.open(config)
    tickets = TicketService(store, config, RatingBook(store))
    rng = random.Random(6)
    for i in range(TICKETS):
        if rng.random() < 0.7:
            set_rating(redis_client, f"p{i}", rng.uniform(10, 40))
    matchers = _start_matchers(server.url, redis_url, cluster)
    deadline = time.monotonic() + 60
    while redis_client.hlen(KEYS.matchers) < MATCHERS:  # all three are up and ticking
        assert time.monotonic() < deadline and all(p.poll() is None for p in matchers)
        time.sleep(0.1)
    ids: list[str] = []
    cancel_ok: set[str] = set()
    cancel_refused: list[str] = []
    owners: set[str] = set()
    created = threading.Event()

    def cancel_racer() -> None:
        """Cancel random recent tickets while the matchers are grabbing them."""
        done = 0
        while done < 250 and not created.is_set():
            if len(ids) < 10:
                time.sleep(0.01)
                continue
            time.sleep(0.01)
            tid = rng.choice(ids[-30:])
            try:
                tickets.cancel(tid)
                cancel_ok.add(tid)
            except TicketNotCancellable as exc:
                cancel_refused.append(exc.extras["ticket_status"] if "placed" not in exc.detail else "claimed")
            done += 1

    racer = threading.Thread(target=cancel_racer)
    racer.start()
    try:
        for i in range(TICKETS):
            counts = rng.choice([[2], [3], [4], [2, 3], [3, 4], [2, 3, 4]])
            edition = rng.choice(["rio_grande", "yucata"])
            max_wait = 1.0 if rng.random() < 0.2 else None
            ids.append(tickets.create(player_id=f"p{i}", player_counts=counts, edition=edition,
                                      master=rng.random() < 0.3, max_wait_seconds=max_wait)["ticket_id"])
            if i % 50 == 0:
                time.sleep(0.02)  # let the matchers interleave with the arrivals
        created.set()
        racer.join(timeout=60)
        deadline, last, stable_since = time.monotonic() + 90, None, time.monotonic()
        while time.monotonic() < deadline:  # until the statuses stop changing for 2 s
            now = _statuses(redis_client, ids)
            owners.update(o for o in (redis_client.get(KEYS.lease(p, b)) for p in KEYS.pools() for b in range(4)) if o)
            if now != last:
                last, stable_since = now, time.monotonic()
            elif time.monotonic() - stable_since > 2 and not now.get("claimed"):
                break
            time.sleep(0.2)
    finally:
        _stop(matchers)
    try:
        _verify(redis_client, server, ids, cancel_ok)
    finally:
        server.stop()
    print(f"\n{MATCHERS} matchers, {TICKETS} tickets: cancelled {len(cancel_ok)}, cancel refused "
          f"{dict(Counter(cancel_refused))}")
    assert len(cancel_ok) > 20 and cancel_refused, (len(cancel_ok), len(cancel_refused))
    assert len(owners) == MATCHERS, owners  # the pools were divided among all three matchers
    if cluster:  # ... and the pools' keys spread over the three masters
        nodes = {redis_client.get_node_from_key(KEYS.queued(p)).port for p in KEYS.pools()}
        assert len(nodes) == 3, nodes


def _verify(client: redis.Redis, server: GameServer, ids: list[str], cancel_ok: set[str]) -> None:
    pipe = client.pipeline(transaction=False)
    for tid in ids:
        pipe.hgetall(KEYS.ticket(tid))
    rows = dict(zip(ids, pipe.execute(), strict=True))
    statuses = Counter(r["status"] for r in rows.values())
    print(f"\nticket statuses {dict(statuses)}")
    assert set(statuses) <= {"matched", "queued", "cancelled"}, statuses
    assert sum(statuses.values()) == TICKETS  # none lost
    assert statuses["matched"] > 0.6 * TICKETS, statuses
    assert all(client.zcard(KEYS.claims(pool)) == 0 for pool in KEYS.pools())
    games = server.all_games()
    print(f"games in the game service: {len(games)}")
    seats_of: dict[str, list[tuple[str, int]]] = {}
    for game in games:
        for seat in game["seats"]:
            if seat["kind"] == "human":
                seats_of.setdefault(seat["player_id"], []).append((game["game_id"], seat["seat"]))
    twice = {p: s for p, s in seats_of.items() if len(s) > 1}
    assert not twice, twice  # no player (= no ticket, one ticket per player) in two games
    matched_games = {r["game_id"] for r in rows.values() if r["status"] == "matched"}
    assert matched_games == {g["game_id"] for g in games}  # no orphaned game either
    for tid, row in rows.items():
        player, status = row["player_id"], row["status"]
        pool = (row["edition"], row["master"] == "1")
        in_queue = [client.hexists(KEYS.queued(pool), tid), client.zscore(KEYS.expiry(pool), tid) is not None]
        if status == "matched":
            assert seats_of[player] == [(row["game_id"], int(row["seat"]))]
            assert not any(in_queue)
        else:
            assert player not in seats_of, (tid, status)  # cancelled or queued: in no game
            assert all(in_queue) if status == "queued" else not any(in_queue)
    assert cancel_ok and all(rows[t]["status"] == "cancelled" for t in cancel_ok)
    sample = [r for r in rows.values() if r["status"] == "matched"][:10]
    with httpx.Client(base_url=server.url) as http:  # the stored seat tokens are the real ones
        for row in sample:
            view = http.get(f"/v1/games/{row['game_id']}/view", headers={"Authorization": f"Bearer {row['token']}"})
            assert view.json()["seat"] == int(row["seat"])
