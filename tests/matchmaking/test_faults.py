"""Faults between matchers and the game service: in every case no ticket is lost, no player sits in two
games, and every group gets exactly one game.

Matchers run as real processes and are SIGKILLed at each step of a claim; a proxy in front of the real game
service (``FaultyProxy``) holds requests or answers, or answers late, to put the kill or the delay exactly
where it hurts.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import redis
from polling import wait_until

from torres_matchmaking.config import Config
from torres_matchmaking.game_client import GameServiceClient
from torres_matchmaking.matcher import Matcher
from torres_matchmaking.ratings import RatingBook
from torres_matchmaking.store import Redis
from torres_matchmaking.tickets import TicketService

from .conftest import API_KEY, REDIS_URL, FaultyProxy, GameServer

POOL = ("rio_grande", False)


def start_matcher(game_url: str, **env: str) -> subprocess.Popen[bytes]:
    full = {**os.environ, "REDIS_URL": REDIS_URL, "GAME_SERVICE_URL": game_url, "GAME_SERVICE_API_KEY": API_KEY,
            "MM_TICK_SECONDS": "0.05", "MM_CLAIM_TIMEOUT": "2", "MM_LEASE_SECONDS": "1", "MM_RETRY_DELAY": "0.3",
            "LOG_LEVEL": "ERROR", **env}
    return subprocess.Popen([sys.executable, "-m", "torres_matchmaking", "matcher", "--no-ratings"], env=full)


@pytest.fixture
def matchers() -> Iterator[list[subprocess.Popen[bytes]]]:
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for p in started:
        if p.poll() is None:
            p.kill()
        p.wait(timeout=30)


def queue(store: Redis, config: Config, players: list[str]) -> tuple[TicketService, list[str]]:
    tickets = TicketService(store, config, RatingBook(store))
    ids = [tickets.create(player_id=p, player_counts=[2], edition=POOL[0], master=POOL[1],
                          max_wait_seconds=None)["ticket_id"] for p in players]
    return tickets, ids


def all_matched(tickets: TicketService, ids: list[str]) -> Callable[[], bool]:
    return lambda: all(tickets.get(t)["status"] == "matched" for t in ids)


def check_one_game_per_group(store: Redis, game_server: GameServer, tickets: TicketService, ids: list[str],
                             players: list[str]) -> list[dict[str, Any]]:
    """The game service is the ground truth: each player in exactly one game, the one their ticket names,
    shared exactly by their group; no claim left behind."""
    ours = set(players)
    games = [g for g in game_server.all_games() if {s.get("player_id") for s in g["seats"]} & ours]
    seats = Counter(s["player_id"] for g in games for s in g["seats"] if s.get("player_id") in ours)
    assert seats == Counter(ours), seats  # nobody in two games, nobody in none
    by_group: dict[str, set[str]] = {}
    for tid in ids:
        t = tickets.get(tid)
        assert t["status"] == "matched", t
        game = next(g for g in games if g["game_id"] == t["game_id"])
        assert game["seats"][t["seat"]]["player_id"] == t["player_id"]
        by_group.setdefault(store.client.hget(store.keys.ticket(tid), "group"), set()).add(t["game_id"])
    assert all(len(g) == 1 for g in by_group.values()), by_group  # one game per group
    assert len(games) == len(by_group) == len(players) // 2
    assert store.client.zcard(store.keys.claims(POOL)) == 0
    return games


@pytest.mark.parametrize("step", ["before_create", "after_create", "after_confirm"])
def test_matcher_sigkilled_at_each_step_of_a_claim(step: str, store: Redis, config: Config, proxy: FaultyProxy,
                                                   game_server: GameServer,
                                                   matchers: list[subprocess.Popen[bytes]]) -> None:
    players = [f"{step}-{i}" for i in range(6)]
    if step == "before_create":
        proxy.hold_requests.set()  # the kill lands after the claim, before the game service saw the request
    elif step == "after_create":
        proxy.hold_answers.set()  # ... after the game service committed the game, before the matcher heard
    matchers.append(start_matcher(proxy.url))
    tickets, ids = queue(store, config, players)
    if step == "before_create":
        wait_until(proxy.arrived.is_set, 30, "a creation request")
    elif step == "after_create":
        wait_until(proxy.committed.is_set, 30, "a committed creation")
    else:
        wait_until(all_matched(tickets, ids), 30, "the matches")
    matchers[0].send_signal(signal.SIGKILL)
    assert matchers[0].wait(timeout=10) == -signal.SIGKILL
    sent_before_the_kill = set(proxy.creation_keys)
    if step != "after_confirm":
        assert all(tickets.get(t)["status"] == "queued" for t in ids)  # claimed, not placed
    proxy.release()  # what the dead matcher sent still arrives: a late creation
    matchers.append(start_matcher(proxy.url))
    wait_until(all_matched(tickets, ids), 60, "the takeover")
    check_one_game_per_group(store, game_server, tickets, ids, players)
    keys = Counter(proxy.creation_keys)
    assert len(keys) == 3
    if step != "after_confirm":  # the takeover asked again for the games the dead matcher had asked for
        assert sent_before_the_kill and all(keys[k] >= 2 for k in sent_before_the_kill), keys


def test_creation_slower_than_the_matchers_timeout(store: Redis, config: Config, proxy: FaultyProxy,
                                                   game_server: GameServer) -> None:
    """Every creation commits but answers after the matcher gave up: the retries get the same games."""
    proxy.delay = 1.2
    slow = config.with_(retry_delay=0.2, claim_timeout=30)
    players = [f"slow-{i}" for i in range(4)]
    tickets, ids = queue(store, slow, players)
    matcher = Matcher(store, slow, GameServiceClient(proxy.url, API_KEY, timeout=0.4))
    try:
        report = matcher.tick()
        assert report.claimed == 2 and report.failed == 2 and report.created == 0
        wait_until(lambda: len(proxy.creation_keys) >= 4, 10, "the retries")
        proxy.delay = 0
        deadline = time.monotonic() + 30
        while not all_matched(tickets, ids)():
            assert time.monotonic() < deadline
            matcher.tick()
            time.sleep(0.05)
    finally:
        matcher.close()
    check_one_game_per_group(store, game_server, tickets, ids, players)
    assert len(set(proxy.creation_keys)) == 2 < len(proxy.creation_keys)


def test_game_service_hangs_longer_than_the_claim_timeout(store: Redis, config: Config, proxy: FaultyProxy,
                                                          game_server: GameServer, redis_client: redis.Redis,
                                                          matchers: list[subprocess.Popen[bytes]]) -> None:
    """Two matchers; the game service hangs, far past the 1 s claim timeout, until a group has been taken over
    while its first creation is still in flight (however long two matchers on a loaded machine take to get
    there), then recovers; all attempts converge on one game each."""
    proxy.hold_requests.set()
    for _ in range(2):
        matchers.append(start_matcher(proxy.url, MM_CLAIM_TIMEOUT="1", GAME_SERVICE_TIMEOUT="30"))
    players = [f"hang-{i}" for i in range(8)]
    tickets, ids = queue(store, config, players)
    wait_until(proxy.arrived.is_set, 30, "a creation request")
    wait_until(lambda: max(Counter(proxy.creation_keys).values()) >= 2, 60,
             "a second attempt at a group while its first hangs")
    taken_over = Counter(proxy.creation_keys)
    proxy.release()
    wait_until(all_matched(tickets, ids), 60, "the recovery")
    for p in matchers:
        p.send_signal(signal.SIGTERM)
        assert p.wait(timeout=30) == 0
    check_one_game_per_group(store, game_server, tickets, ids, players)
    assert len(set(proxy.creation_keys)) == 4
    assert max(taken_over.values()) >= 2, taken_over  # a second attempt went out while the first hung
