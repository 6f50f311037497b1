"""Tamper evidence: an administrator who bypasses the append-only guard is caught by verify."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from torres_audit.chain import GENESIS_HASH, chain_hash, content_hash
from torres_online.lifecycle import format_time

from .conftest import create_game, play_one


def _play(client: FlaskClient, actions: int) -> dict[str, Any]:
    game = create_game(client)
    rng = random.Random(5)
    for n in range(actions):
        play_one(client, game, rng, n)
    assert client.get(f"/v1/games/{game['game_id']}/verify").get_json()["ok"] is True
    return game


@pytest.mark.postgres
def test_altered_payload_is_reported_at_its_version(pg_app: Flask) -> None:
    client = pg_app.test_client()
    game = _play(client, 6)
    store = pg_app.extensions["torres_game"].store
    with store.pool.connection() as conn, conn.transaction():
        conn.execute("SET LOCAL session_replication_role = replica")  # superuser: triggers off
        conn.execute(
            "UPDATE events SET payload = jsonb_set(payload, '{action,type}', '\"buy_card\"')"
            " WHERE game_id = %s AND version = 4", (game["game_id"],))
    report = client.get(f"/v1/games/{game['game_id']}/verify").get_json()
    assert report["ok"] is False
    assert report["first_inconsistency"]["version"] == 4
    assert "hash mismatch" in report["first_inconsistency"]["reason"]


@pytest.mark.postgres
def test_rechained_forgery_is_caught_by_the_refold(pg_app: Flask) -> None:
    """Rewriting an event *and* recomputing every later hash still fails: the fold disagrees."""
    client = pg_app.test_client()
    game = _play(client, 6)
    game_id = game["game_id"]
    store = pg_app.extensions["torres_game"].store
    with store.pool.connection() as conn, conn.transaction():
        conn.execute("SET LOCAL session_replication_role = replica")
        rows = conn.execute(
            "SELECT version, type, payload, schema_version, created_at, command_id FROM events"
            " WHERE game_id = %s ORDER BY version", (game_id,)).fetchall()
        prev = GENESIS_HASH
        for version, type_, payload, schema_version, created_at, command_id in rows:
            if version == 3:
                payload["seat"] = 1 - payload["seat"]
            digest = chain_hash(prev, content_hash(
                game_id=game_id, version=version, type=type_, payload=payload, schema_version=schema_version,
                created_at=format_time(created_at), command_id=command_id))
            conn.execute("UPDATE events SET payload = %s::jsonb, prev_hash = %s, hash = %s"
                         " WHERE game_id = %s AND version = %s",
                         (json.dumps(payload), prev, digest, game_id, version))
            prev = digest
    report = client.get(f"/v1/games/{game_id}/verify").get_json()
    assert report["ok"] is False and report["first_inconsistency"]["version"] == 3
    assert "to move" in report["first_inconsistency"]["reason"]


def test_sqlite_tamper_is_reported(app: Flask, client: FlaskClient) -> None:
    game = _play(client, 5)
    with app.extensions["torres_game"].store._conn() as conn:
        conn.execute("DROP TRIGGER events_no_update")  # the admin's bypass on SQLite
        conn.execute("UPDATE events SET command_id = 'forged' WHERE game_id = ? AND version = 3", (game["game_id"],))
    report = client.get(f"/v1/games/{game['game_id']}/verify").get_json()
    assert report["first_inconsistency"] == {"version": 3, "reason": "hash mismatch: the stored event was altered"}
