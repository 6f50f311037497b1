"""Every statement the game service sends about one game names the game (docs/capacity.md).

The road past one PostgreSQL primary is Citus with the per-game tables distributed and colocated by ``game_id``
and ``torres_append`` delegated to the shard that owns its first argument. That only scales if each statement of a
game's life is routed to one shard: it must carry ``game_id`` (an equality, ``= ANY`` of a list of ids, or the
column of an INSERT), or be a delegated function called with the game id first. This test records the SQL of a
complete game on PostgreSQL -- creation, every action to the end, the reads, a long-poll, the seat tokens, a stream
ticket, snapshots -- from every connection of the process (pool, listener, notifier), and checks each statement
that touches a distributed table. The statements that span games by design are listed in ``SPANNING`` with the
reason; each one is a multi-shard query on Citus, and docs/capacity.md says what becomes of it.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from flask import Flask
from flask.testing import FlaskClient

from torres_game.app import create_app
from torres_game.store import PostgresEventStore

from .conftest import ADMIN, SERVICE, bearer, create_game, make_config

pytestmark = [pytest.mark.postgres, pytest.mark.timeout(300)]

#: Distributed by game_id and colocated (docs/capacity.md): every row belongs to one game.
DISTRIBUTED = ("games", "game_secrets", "events", "commands", "snapshots", "ai_turns", "seat_tokens",
               "webhook_outbox", "log_leaves")
#: Functions run on the shard that owns their first argument, the game id (create_distributed_function).
DELEGATED = ("torres_append", "torres_write_webhooks")

#: Statements that read across games on purpose (fragment -> why), each a multi-shard query on Citus.
SPANNING = {
    "torres_events_horizon()": "the global notification log's horizon: one per log read, docs/capacity.md says "
                               "how a sharded log replaces it (a horizon and a cursor per shard)",
    "FROM events WHERE position >": "the global notification log (GET /v1/notifications): read by position",
    "FROM events e JOIN games g ON g.game_id = e.game_id WHERE e.position >": "one tenant's notification log",
    "ORDER BY created_at DESC, game_id DESC": "listing games (GET /v1/games, by tenant, player, status): a "
                                              "portal's paged listing",
    "summary->>'deadline' <=": "the enforcer's scan for games past their deadline",
    "FROM ai_turns WHERE done_at IS NULL": "the AI outbox's sweep for turns nobody plays",
    "FROM webhook_outbox WHERE status = 'pending'": "the webhook worker claims due rows of any game",
    "UPDATE webhook_outbox o SET attempts": "the webhook worker records attempts by their seq",
    "torres_webhooks_horizon()": "the webhook delivery log's horizon (per tenant, across games)",
    "FROM webhook_outbox WHERE seq >": "the webhook delivery log, read by seq",
    "count(*) FROM webhook_outbox": "the webhook backlog gauge",
    "FROM log_leaves WHERE leaf_index IS NULL": "the transparency log's one sequencer reads the queue of every game",
    "UPDATE log_leaves l SET leaf_index": "the sequencer marks a batch of games' leaves (one statement, routed by "
                                          "game_id per row)",
    "count(*) FROM log_leaves": "the sequencer's backlog gauge",
    "FROM log_leaves WHERE leaf_hash = %s": "an inclusion proof looked up by the leaf's hash (a public audit "
                                            "endpoint that knows no game id)",
}

_TABLES = re.compile(r"\b(?:FROM|JOIN|INTO|UPDATE)\s+(\w+)", re.IGNORECASE)
_KEYED = re.compile(r"\b(?:\w+\.)?game_id\s*=\s*(?:%s|ANY\s*\(\s*%s)", re.IGNORECASE)
_INSERT_KEYED = re.compile(r"\bINSERT\s+INTO\s+\w+\s*\(\s*game_id\b", re.IGNORECASE)
_CALL = re.compile(r"\b(" + "|".join(DELEGATED) + r")\s*\(\s*%s", re.IGNORECASE)


def verdict(sql: str) -> str:
    """'local' (touches no distributed table), 'keyed', 'delegated', a SPANNING fragment, or 'UNKEYED'."""
    flat = " ".join(sql.split())
    touches = bool({name.lower() for name in _TABLES.findall(flat)} & set(DISTRIBUTED)) or any(
        name in flat for name in DELEGATED)
    if _CALL.search(flat):
        return "delegated"
    if touches and (_KEYED.search(flat) or _INSERT_KEYED.search(flat)):
        return "keyed"
    spanning = next((fragment for fragment in SPANNING if fragment in flat), None)
    if spanning is not None:
        return spanning
    return "UNKEYED" if touches else "local"


def test_the_classifier_tells_keyed_statements_from_unkeyed_ones() -> None:
    assert verdict("SELECT version FROM games WHERE game_id = %s") == "keyed"
    assert verdict("SELECT g.status FROM games g LEFT JOIN seat_tokens t ON t.game_id = g.game_id"
                   " WHERE g.game_id = %s") == "keyed"
    assert verdict("INSERT INTO events (game_id, version) VALUES (%s, %s)") == "keyed"
    assert verdict("SELECT * FROM torres_append(%s, %s)") == "delegated"
    assert verdict("SELECT version FROM games WHERE status = %s") == "UNKEYED"
    assert verdict("SELECT * FROM torres_append(NULL, %s)") == "UNKEYED"
    assert verdict("UPDATE ai_turns SET done_at = now() WHERE version = %s") == "UNKEYED"
    assert verdict("SELECT 1") == "local"
    assert verdict("SELECT torres_notify(%s, %s)") == "local"


@pytest.fixture
def statements(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every statement any psycopg connection of this process executes while the test runs."""
    seen: list[str] = []
    execute = psycopg.Cursor.execute

    def recording(self: psycopg.Cursor[Any], query: Any, *args: Any, **kwargs: Any) -> Any:
        text = query if isinstance(query, str) else query.decode() if isinstance(query, bytes) else \
            query.as_string(self.connection)
        seen.append(text)
        return execute(self, query, *args, **kwargs)

    monkeypatch.setattr(psycopg.Cursor, "execute", recording)
    yield seen


def play_to_the_end(client: FlaskClient, game: dict[str, Any], rng: random.Random) -> int:
    gid, n = game["game_id"], 0
    while (summary := client.get(f"/v1/games/{gid}").get_json())["status"] != "over":
        seat = summary["to_move"]
        auth = bearer(game["seats"][seat]["token"])
        legal = client.get(f"/v1/games/{gid}/legal-actions", headers=auth).get_json()
        body = {"seat": seat, "action": rng.choice(legal["actions"]), "expected_version": legal["version"],
                "command_id": f"c{n}"}
        response = client.post(f"/v1/games/{gid}/actions", json=body, headers=auth)
        assert response.status_code == 201, response.get_json()
        n += 1
    return n


def test_every_statement_of_a_complete_game_carries_the_distribution_key(
        pg_url: str, pg_store: PostgresEventStore, statements: list[str]) -> None:
    # pg_store has migrated the database before the recording starts: the schema's DDL is not a game's SQL.
    app: Flask = create_app(make_config(pg_url, pool_max=4))
    try:
        client = app.test_client()
        game = create_game(client)
        gid = game["game_id"]
        auth = bearer(game["seats"][0]["token"])
        assert client.get(f"/v1/games/{gid}/wait?version=1&timeout=0.1", headers=auth).status_code == 200
        assert client.post(f"/v1/games/{gid}/stream-tickets", headers=auth).status_code == 201
        reissued = client.post(f"/v1/games/{gid}/seats/1/token", headers=SERVICE)
        assert reissued.status_code == 201, reissued.get_json()
        game["seats"][1]["token"] = reissued.get_json()["token"]
        assert play_to_the_end(client, game, random.Random(31)) > 20  # past a snapshot (every 20 events)
        for path in ("", "/view", "/events?limit=1000", "/state", "/verify", "/record"):
            assert client.get(f"/v1/games/{gid}{path}", headers=ADMIN).status_code == 200, path
        assert client.get("/v1/notifications?after=0&limit=10", headers=SERVICE).status_code == 200
        assert client.get("/v1/games?limit=5", headers=SERVICE).status_code == 200
    finally:
        app.extensions["torres_game"].close()
    verdicts = {sql: verdict(sql) for sql in statements}
    unkeyed = sorted({" ".join(sql.split()) for sql, v in verdicts.items() if v == "UNKEYED"})
    assert not unkeyed, "statements on distributed tables without game_id:\n" + "\n".join(unkeyed)
    kinds = set(verdicts.values())
    assert {"keyed", "delegated", "torres_events_horizon()"} <= kinds  # the game was recorded, and the log read
