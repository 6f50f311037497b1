"""The shortcuts taken on every action request give exactly what the general code they skip would give.

Each fast path (responses sent without a marshmallow dump, the orjson provider,
the summary read from state fields, content hashes computed once per append) is compared here with the
general path on many inputs, so a later change to a schema, an encoder or the rules shows up as a failure.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import given, settings
from hypothesis import strategies as st

import torres_rules as tr
from torres_audit.chain import GENESIS_HASH, chain_hash, content_hash
from torres_game import events as ev
from torres_game.access import Credentials
from torres_game.app import create_app
from torres_game.http import schemas as s
from torres_game.store.base import NewEvent, content_hashes, stamp
from torres_online.lifecycle import Lifecycle, Settings, format_time
from torres_service.json_provider import OrjsonProvider, dumps_bytes

from .conftest import API_KEY, make_config

# -- request bodies ---------------------------------------------------------------------------

_json_leaf = (st.none() | st.booleans() | st.integers(-(2**70), 2**70)
              | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=4))
_json = st.recursive(_json_leaf, lambda inner: st.lists(inner, max_size=3)
                     | st.dictionaries(st.text(max_size=4), inner, max_size=3), max_leaves=6)
@pytest.fixture
def sqlite_app(tmp_path: Path) -> Any:
    application = create_app(make_config(f"sqlite:///{tmp_path / 'hot.sqlite3'}"))
    yield application
    application.extensions["torres_game"].close()


@pytest.mark.parametrize("players", [2, 4])
def test_hot_bodies_are_what_their_schemas_dump(sqlite_app: Flask, players: int) -> None:
    """A whole game through the service: each action's 201 body and each legal-actions body dumps through its
    declared schema to itself, so sending them as built hides nothing and adds nothing."""
    svc = sqlite_app.extensions["torres_game"]
    game = svc.creation.create_game(Credentials(api_key=API_KEY), edition="rio_grande", master=False,
                           options={}, seats=[{"kind": "human"}] * players)
    tokens = [seat["token"] for seat in game["seats"]]
    rng = random.Random(players)
    result_schema, legal_schema = s.ActionResultSchema(), s.LegalActionsSchema()
    types: set[str] = set()
    for n in range(2000):
        seat = svc.games.current(game["game_id"]).to_move
        if seat is None:
            break
        creds = Credentials(token=tokens[seat])
        legal = svc.queries.legal_actions(game["game_id"], creds)
        assert legal_schema.dump(legal) == legal
        result = svc.commands.submit_action(game["game_id"], creds, seat=seat, action=rng.choice(legal["actions"]),
                                   expected_version=legal["version"], command_id=f"c{n}")
        assert result_schema.dump(result.body) == result.body
        types.update(event["type"] for event in result.body["events"])
    assert svc.games.current(game["game_id"]).to_move is None and "game_ended" in types


def _two_player_game(client: FlaskClient) -> tuple[str, dict[str, str]]:
    """A new game of two human seats: its id and seat 0's authorization header."""
    created = client.post("/v1/games", json={"seats": [{"kind": "human"}, {"kind": "human"}]},
                          headers={"X-API-Key": API_KEY}).get_json()
    return created["game_id"], {"Authorization": f"Bearer {created['seats'][0]['token']}"}


def test_action_response_is_the_providers_json(sqlite_app: Flask) -> None:
    client = sqlite_app.test_client()
    gid, auth = _two_player_game(client)
    legal = client.get(f"/v1/games/{gid}/legal-actions", headers=auth)
    assert legal.status_code == 200 and legal.mimetype == "application/json"
    body = {"seat": 0, "action": legal.get_json()["actions"][0], "expected_version": 1, "command_id": "a"}
    first = client.post(f"/v1/games/{gid}/actions", json=body, headers=auth)
    again = client.post(f"/v1/games/{gid}/actions", json=body, headers=auth)
    assert first.status_code == again.status_code == 201 and first.mimetype == "application/json"
    assert "Idempotent-Replayed" not in first.headers and again.headers["Idempotent-Replayed"] == "true"
    assert first.get_json() == again.get_json()
    assert list(first.get_json()) == ["version", "events", "legal_actions"]


# -- the orjson provider -----------------------------------------------------------------------

@dataclass
class _Point:
    x: int
    label: str


@settings(max_examples=300, deadline=None)
@given(_json)
def test_provider_writes_what_the_standard_encoder_means(value: Any) -> None:
    app = Flask("provider")
    app.json = OrjsonProvider(app)
    app.json.sort_keys = False  # type: ignore[attr-defined]
    standard = Flask("standard")
    standard.json.sort_keys = False  # type: ignore[attr-defined]
    with app.app_context():
        fast = app.json.response(value).get_data()
        text = app.json.dumps(value)
    with standard.app_context():
        slow = standard.json.response(value).get_data()
    assert fast.endswith(b"\n") and json.loads(fast) == json.loads(slow) == json.loads(text)
    assert list(json.loads(fast)) == list(json.loads(slow)) if isinstance(value, dict) else True


def test_provider_keeps_flasks_types_and_falls_back_where_orjson_cannot() -> None:
    app = Flask("provider")
    app.json = OrjsonProvider(app)
    app.json.sort_keys = False  # type: ignore[attr-defined]
    standard = Flask("standard")
    standard.json.sort_keys = False  # type: ignore[attr-defined]
    value = {"when": datetime(2024, 5, 1, 12, 30, tzinfo=UTC), "price": Decimal("1.50"),
             "id": UUID(int=7), "point": _Point(1, "é"), 3: "int key", "big": 2**80}
    with app.app_context():
        fast = json.loads(app.json.response(value).get_data())
    with standard.app_context():
        slow = json.loads(standard.json.response(value).get_data())
    assert fast == slow and fast["when"] == "Wed, 01 May 2024 12:30:00 GMT" and fast["big"] == 2**80
    with app.app_context(), pytest.raises(TypeError):
        app.json.dumps({"a set": {1}})


@settings(max_examples=300, deadline=None)
@given(_json)
def test_stored_json_is_the_standard_encoders_value(value: Any) -> None:
    """The database's JSON parameters (orjson, or the standard encoder where orjson refuses: the strategy's
    integers reach beyond 64 bits) read back as the value the standard encoder writes."""
    assert json.loads(dumps_bytes(value)) == json.loads(json.dumps(value))


# -- the summary projection and the hash chain -------------------------------------------------

@pytest.mark.parametrize("players,seed", [(2, 1), (3, 2), (4, 3)])
def test_summary_reads_the_same_fields_as_the_position(players: int, seed: int) -> None:
    rng = random.Random(seed)
    state = tr.new_game(players=players, seed=seed)
    life = Lifecycle(Settings(), ("human",) * players)  # untimed, nobody left: the rules decide everything
    while True:
        position, over = state.to_position(), tr.is_over(state)
        assert ev.summary_of(state, life) == {
            "stage": position["stage"], "phase": position["phase"], "round": position["round"],
            "to_move": None if over else position["to_move"], "scores": position["scores"],
            "winner": tr.winner(state) if over else None, "deadline": None,
            "winners": [tr.winner(state)] if over else [],
        }
        if over:
            break
        state = tr.apply(state, rng.choice(tr.legal_actions(state)))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.dictionaries(st.text(max_size=5), _json, max_size=4), min_size=1, max_size=3),
       st.text(max_size=10), st.integers(1, 10**6))
def test_stamp_with_precomputed_content_hashes_is_the_event_hash_chain(
    payloads: list[dict[str, Any]], command_id: str, first: int
) -> None:
    now = datetime(2024, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)
    events = [NewEvent("action_applied", payload) for payload in payloads]
    created_at = format_time(now)
    contents = content_hashes("g", first, events, command_id, created_at)
    stamped = stamp("g", first, GENESIS_HASH, events, command_id, now, created_at=created_at, contents=contents)
    assert stamped == stamp("g", first, GENESIS_HASH, events, command_id, now)
    prev = GENESIS_HASH
    for offset, event in enumerate(stamped):
        assert event.prev_hash == prev and event.version == first + offset
        assert event.hash == chain_hash(prev, content_hash(
            game_id="g", version=first + offset, type="action_applied", payload=payloads[offset],
            schema_version=1, created_at=created_at, command_id=command_id))
        prev = event.hash


# -- credentials -----------------------------------------------------------------------------------------------

_header_values = (st.text(st.sampled_from("aZ9-_.~+/= \t"), max_size=12)
                  | st.sampled_from(["", "Bearer abc", "bearer x"]))


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from(["X-API-Key", "x-api-key", "X-Admin-Key", "X-ADMIN-KEY", "Authorization",
                                        "authorization"]), _header_values, max_size=4))
def test_credentials_read_from_the_environ_are_the_headers(headers: dict[str, str]) -> None:
    """``credentials()`` reads the WSGI environ directly: the same values as ``request.headers.get``, however the
    client spelled the names, with or without each header, and the same refusal of an Authorization that is not
    a bearer token."""
    from torres_game.http.auth import credentials
    from torres_service.errors import UnsupportedAuthorization
    from torres_service.limits import bearer_token

    app = Flask("credentials")
    with app.test_request_context("/", headers=list(headers.items())):
        from flask import request

        try:
            expected: Credentials | type[Exception] = Credentials(
                api_key=request.headers.get("X-API-Key") or None,
                admin_key=request.headers.get("X-Admin-Key") or None,
                token=bearer_token(request.headers.get("Authorization")))
        except UnsupportedAuthorization:
            expected = UnsupportedAuthorization
        if expected is UnsupportedAuthorization:
            with pytest.raises(UnsupportedAuthorization):
                credentials()
        else:
            assert credentials() == expected
