"""The game service through real PostgreSQL failovers (Patroni, synchronous_mode, HAProxy: infra/ha/pg_ha.py).

Each test breaks the primary in one way -- SIGKILL of the node, a hang (SIGSTOP) until Patroni fails over, a planned
switchover, a network partition (iptables rules in the cluster's own network namespace) -- while the service (the
Flask app, its pool, its listener) is in use, and checks what a client sees: 503 ``store_unavailable`` with
``Retry-After`` and a problem body, never a 500, never a wait past the documented bound; the pool back on the new
primary at once; a retry with the same ``command_id`` applied exactly once; a long-poll waiter woken by an action
taken on the new primary.
"""

from __future__ import annotations

import os
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import isolation
import pg_ha
import pytest
from flask import Flask
from flask.testing import FlaskClient

from torres_game.app import create_app
from torres_game.config import Config
from torres_game.store.postgres import POOL_TIMEOUT

API_KEY, ADMIN_KEY = "faults-service-key", "faults-admin-key"
SERVICE, ADMIN = {"X-API-Key": API_KEY}, {"X-Admin-Key": ADMIN_KEY}
#: The longest any request may take while the primary is lost: a wait for a connection is cut at DB_POOL_TIMEOUT,
#: a request on a connection to a hung primary by HAProxy's health check (~2.2 s); a second of slack for the test.
BOUND = POOL_TIMEOUT + 1.0
#: How long a client keeps retrying before the test gives up on the failover (Patroni: ~10-13 s).
FAILOVER_LIMIT = 60.0


@pytest.fixture
def app(pg_ha_cluster: pg_ha.PgHa) -> Iterator[Flask]:
    """The game service on the HA cluster, 8 pooled connections opened at start (all idle when a fault hits). No
    background thread (deadline sweeps, sequencer, webhooks) uses the pool: one sweeping every second would come
    upon the broken connections during the failover, one by one, before the requests the tests make."""
    config = Config(database_url=pg_ha_cluster.url, api_key=API_KEY, admin_key=ADMIN_KEY, ai_driver="none",
                    log_interval=0, webhook_interval=0, enforcer_interval=0, json_logs=True, log_level="WARNING",
                    pool_min=8, pool_max=8)
    application = create_app(config)
    pool = application.extensions["torres_game"].store.pool
    deadline = time.monotonic() + 20
    while pool.get_stats()["pool_available"] < 8:
        assert time.monotonic() < deadline, "the pool did not open its connections"
        time.sleep(0.05)
    yield application
    application.extensions["torres_game"].close()


class Player:
    """Plays a two-seat game through the HTTP API, retrying each action with its command id while answered 503,
    and records every answer a fault could shape."""

    def __init__(self, client: FlaskClient) -> None:
        self.client = client
        created = client.post("/v1/games", headers=SERVICE, json={
            "seats": [{"kind": "human", "player_id": f"a-{uuid.uuid4().hex[:6]}"},
                      {"kind": "human", "player_id": f"b-{uuid.uuid4().hex[:6]}"}]})
        assert created.status_code == 201, created.get_json()
        self.game_id: str = created.get_json()["game_id"]
        self.tokens = [seat["token"] for seat in created.get_json()["seats"]]
        self.answers: list[tuple[int, float, dict[str, str], Any]] = []  # status, seconds, headers, body
        self.acknowledged: list[str] = []  # command ids answered 201

    def call(self, method: str, path: str, **kwargs: Any) -> Any:
        started = time.monotonic()
        response = self.client.open(path, method=method, **kwargs)
        self.answers.append((response.status_code, time.monotonic() - started, dict(response.headers),
                             response.get_json(silent=True)))
        return response

    def until_served(self, method: str, path: str, **kwargs: Any) -> Any:
        deadline = time.monotonic() + FAILOVER_LIMIT
        while True:
            response = self.call(method, path, **kwargs)
            if response.status_code != 503:
                return response
            assert time.monotonic() < deadline, "the service did not come back after the failover"
            time.sleep(0.2)

    def move(self, command_id: str | None = None) -> str | None:
        """One legal action by the seat to move, retried with the same command id until it is answered; None when
        nobody is to move (the game is over)."""
        command_id = command_id or uuid.uuid4().hex
        game = self.until_served("GET", f"/v1/games/{self.game_id}").get_json()
        seat = game["to_move"]
        if seat is None:
            return None
        auth = {"Authorization": f"Bearer {self.tokens[seat]}"}
        legal = self.until_served("GET", f"/v1/games/{self.game_id}/legal-actions", headers=auth).get_json()
        body = {"seat": seat, "action": legal["actions"][0], "expected_version": legal["version"],
                "command_id": command_id}
        response = self.until_served("POST", f"/v1/games/{self.game_id}/actions", headers=auth, json=body)
        assert response.status_code == 201, response.get_json()
        self.acknowledged.append(command_id)
        return command_id

    def check_answers(self) -> int:
        """Every answer a success or a proper 503 within the bound; returns the number of 503s."""
        refused = 0
        for status, seconds, headers, body in self.answers:
            assert status != 500 and (status < 300 or status == 503), (status, body)
            assert seconds < BOUND, f"a request took {seconds:.1f} s, past the {BOUND} s bound"
            if status == 503:
                refused += 1
                assert headers.get("Retry-After", "").isdigit(), headers
                assert headers["Content-Type"] == "application/problem+json", headers
                assert body["code"] == "store_unavailable" and body["status"] == 503, body
        return refused

    def check_log(self) -> None:
        """Each acknowledged command exactly once in the game's log, versions contiguous from 1."""
        events = self.until_served("GET", f"/v1/games/{self.game_id}/events?limit=1000", headers=ADMIN)
        versions = [e["version"] for e in events.get_json()["events"]]
        assert versions == list(range(1, len(versions) + 1))
        commands = [e["command_id"] for e in events.get_json()["events"] if e.get("command_id")]
        for command_id in self.acknowledged:
            assert commands.count(command_id) >= 1, f"acknowledged {command_id} is not in the log"
        # an action's events share its command id; no command id comes back after another one
        runs = [c for i, c in enumerate(commands) if i == 0 or commands[i - 1] != c]
        assert len(runs) == len(set(runs)), "a command was applied twice"


def test_once_a_new_primary_took_over_no_request_is_refused_for_a_connection_the_kill_broke(
        app: Flask, pg_ha_cluster: pg_ha.PgHa) -> None:
    player = Player(app.test_client())
    player.move()
    old = pg_ha_cluster.wait_for_leader()
    pg_ha_cluster.kill(old)
    pg_ha_cluster.wait_for_leader(other_than=old)
    time.sleep(3)  # HAProxy marks the new primary up at its next passing check (every second)
    player.answers.clear()
    for _ in range(6):  # every pooled connection broke with the old primary
        player.call("GET", f"/v1/games/{player.game_id}")
    refused = player.check_answers()
    # The pool checks each connection as it hands it out and replaces the broken ones.
    assert refused == 0, f"{refused} of 6 requests refused after the new primary took over"
    assert player.answers[-1][0] == 200
    player.move()
    player.check_log()


def test_a_request_caught_by_a_hung_primary_answers_503_within_the_bound_and_its_retry_applies_once(
        app: Flask, pg_ha_cluster: pg_ha.PgHa) -> None:
    player = Player(app.test_client())
    player.move()
    old = pg_ha_cluster.wait_for_leader()
    pg_ha_cluster.freeze(old)
    try:
        player.answers.clear()
        command_id = player.move()  # caught by the hang, then retried with its command id until the new primary
        assert any(status == 503 for status, *_ in player.answers), "no request was caught by the hang"
        new = pg_ha_cluster.wait_for_leader(other_than=old)
        assert new is not old
    finally:
        pg_ha_cluster.thaw(old)
    player.check_answers()
    player.move()
    player.check_log()
    assert player.acknowledged.count(command_id) == 1


def test_a_partitioned_primary_is_replaced_and_a_request_caught_by_it_answers_503_within_the_bound(
        app: Flask, pg_ha_cluster: pg_ha.PgHa) -> None:
    player = Player(app.test_client())
    player.move()
    old = pg_ha_cluster.wait_for_leader()
    pg_ha_cluster.partition(old)  # its processes run on; nothing reaches it and it no longer reaches etcd
    try:
        player.answers.clear()
        command_id = player.move()  # caught by the partition, retried with its command id on the new primary
        assert any(status == 503 for status, *_ in player.answers), "no request was caught by the partition"
        new = pg_ha_cluster.wait_for_leader(other_than=old)
        assert new is not old
        player.move()
    finally:
        pg_ha_cluster.heal(old)
    player.check_answers()
    pg_ha_cluster.wait_healthy(120)  # the old primary rejoins as a standby once it is reachable again
    assert pg_ha_cluster.leader() is not old
    player.move()
    player.check_log()
    assert player.acknowledged.count(command_id) == 1


def test_a_partition_is_refused_outside_a_namespace_of_the_clusters_own(tmp_path: Path) -> None:
    """Anywhere else (this machine's network, or a namespace shared with others) the rules would cut more than
    the cluster."""
    outside = os.readlink("/proc/thread-self/ns/net")  # the test's own namespace (this module's: it made it)
    with isolation.network_namespace() as made:
        assert isolation.made_here(made) and made != outside
    isolation.MADE.discard(made)  # as if another process had made it
    for netns in (made, ""):
        cluster = pg_ha.PgHa(netns=netns, base=tmp_path)
        cluster.nodes.append(pg_ha.Node("pg0", 1, 2, tmp_path))
        with pytest.raises(RuntimeError, match="network namespace of its own"):
            cluster.partition(cluster.nodes[0])


def test_writers_ride_through_a_switchover_each_action_applied_once(
        app: Flask, pg_ha_cluster: pg_ha.PgHa) -> None:
    players = [Player(app.test_client()) for _ in range(3)]
    stop = threading.Event()
    errors: list[BaseException] = []

    def play(player: Player) -> None:
        try:
            while not stop.is_set() and player.move() is not None:
                pass
        except BaseException as exc:  # reported below, in the test's thread
            errors.append(exc)

    threads = [threading.Thread(target=play, args=(p,)) for p in players]
    for thread in threads:
        thread.start()
    time.sleep(1)
    pg_ha_cluster.switchover()
    time.sleep(4)
    stop.set()
    for thread in threads:
        thread.join(FAILOVER_LIMIT)
    assert not errors, errors
    for player in players:
        player.check_answers()
        player.check_log()
        assert len(player.acknowledged) > 3


def test_a_waiter_is_woken_by_an_action_taken_on_the_new_primary(app: Flask, pg_ha_cluster: pg_ha.PgHa) -> None:
    player = Player(app.test_client())
    player.move()
    version = player.until_served("GET", f"/v1/games/{player.game_id}").get_json()["version"]
    woke: list[tuple[float, Any]] = []

    def wait() -> None:
        response = app.test_client().get(f"/v1/games/{player.game_id}/wait?version={version}&timeout=55",
                                         headers=ADMIN)
        woke.append((time.monotonic(), response.get_json()))

    waiter = threading.Thread(target=wait)
    waiter.start()
    time.sleep(0.5)
    old = pg_ha_cluster.wait_for_leader()
    pg_ha_cluster.kill(old)
    pg_ha_cluster.wait_for_leader(other_than=old)
    player.move()
    moved_at = time.monotonic()
    waiter.join(60)
    assert woke, "the waiter never returned"
    at, body = woke[0]
    assert body["version"] > version
    # The listener re-subscribes on the new primary and re-reads the games waited on (PgListener.recheck_every).
    assert at - moved_at < 5, f"woken {at - moved_at:.1f} s after the action"
