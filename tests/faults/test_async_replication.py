"""What asynchronous replication loses, and the checker catching it (the fault suite must be able to fail).

The HA cluster here runs with ``synchronous_mode`` off: the primary acknowledges a commit once it has it alone. The
standbys' WAL receivers are stopped (SIGSTOP) so they fall behind, a few actions are acknowledged meanwhile, and
the primary is SIGKILLed with the receivers (what they had not written to disk is gone with them). Patroni
promotes a standby (its lag is far below ``maximum_lag_on_failover``), and the actions acknowledged while the
receivers were stopped are not in its log: :func:`checker.log_problems` names exactly those. The same steps with
``synchronous_mode`` on never acknowledge those actions (a commit waits for the synchronous standby), which is why
test_pg_failover.py and the fault suite expect no loss.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from typing import Any

import pg_ha
import pytest
from flask import Flask
from flask.testing import FlaskClient

from torres_game.app import create_app
from torres_game.config import Config

from . import checker

PG_SYNCHRONOUS = False  # the module's cluster (conftest.pg_cluster)
API_KEY, ADMIN_KEY = "async-service-key", "async-admin-key"
SERVICE, ADMIN = {"X-API-Key": API_KEY}, {"X-Admin-Key": ADMIN_KEY}


@pytest.fixture
def app(pg_ha_cluster: pg_ha.PgHa) -> Iterator[Flask]:
    config = Config(database_url=pg_ha_cluster.url, api_key=API_KEY, admin_key=ADMIN_KEY, ai_driver="none",
                    log_interval=0, webhook_interval=0, enforcer_interval=0, json_logs=True, log_level="WARNING",
                    pool_min=2, pool_max=4)
    application = create_app(config)
    yield application
    application.extensions["torres_game"].close()


def until_served(client: FlaskClient, method: str, path: str, **kwargs: Any) -> Any:
    deadline = time.monotonic() + 60
    while True:
        response = client.open(path, method=method, **kwargs)
        if response.status_code != 503:
            return response
        assert time.monotonic() < deadline, "the service did not come back after the failover"
        time.sleep(0.2)


def move(client: FlaskClient, game_id: str, tokens: list[str]) -> tuple[str, int]:
    """One legal action by the seat to move; its command id and the version it was acknowledged at."""
    game = until_served(client, "GET", f"/v1/games/{game_id}").get_json()
    auth = {"Authorization": f"Bearer {tokens[game['to_move']]}"}
    legal = until_served(client, "GET", f"/v1/games/{game_id}/legal-actions", headers=auth).get_json()
    command_id = uuid.uuid4().hex
    answer = until_served(client, "POST", f"/v1/games/{game_id}/actions", headers=auth, json={
        "seat": game["to_move"], "action": legal["actions"][0], "expected_version": legal["version"],
        "command_id": command_id})
    assert answer.status_code == 201, answer.get_json()
    return command_id, answer.get_json()["version"]


def test_a_failover_under_asynchronous_replication_loses_acknowledged_actions_and_the_checker_says_so(
        app: Flask, pg_ha_cluster: pg_ha.PgHa) -> None:
    client = app.test_client()
    created = until_served(client, "POST", "/v1/games", headers=SERVICE, json={
        "seats": [{"kind": "human", "player_id": f"a-{uuid.uuid4().hex[:6]}"},
                  {"kind": "human", "player_id": f"b-{uuid.uuid4().hex[:6]}"}]})
    assert created.status_code == 201, created.get_json()
    game_id = created.get_json()["game_id"]
    tokens = [seat["token"] for seat in created.get_json()["seats"]]
    kept = dict(move(client, game_id, tokens) for _ in range(3))
    time.sleep(1.5)  # the standbys have these (asynchronous, but on loopback within milliseconds)
    old = pg_ha_cluster.wait_for_leader()
    assert all(node.wal_receivers() for node in pg_ha_cluster.nodes if node is not old), "each standby streams"
    with pg_ha_cluster.standbys_stalled(old):
        lost = dict(move(client, game_id, tokens) for _ in range(3))  # acknowledged by the primary alone
        pg_ha_cluster.kill(old)
    new = pg_ha_cluster.wait_for_leader(other_than=old, timeout=90)
    assert new is not old

    events = until_served(client, "GET", f"/v1/games/{game_id}/events?limit=1000", headers=ADMIN).get_json()
    problems = checker.log_problems(game_id, events["events"], {**kept, **lost})
    assert problems == [f"{game_id}: acknowledged {command_id} at version {version} is not there (found None)"
                        for command_id, version in lost.items()]
    assert checker.log_problems(game_id, events["events"], kept) == []
