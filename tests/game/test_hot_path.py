"""The shortcuts taken on every action request give exactly what the general code they skip would give.

Each fast path (hand-checked request bodies, responses sent without a marshmallow dump, the orjson provider,
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
from marshmallow import Schema, ValidationError

import torres_rules as tr
from torres_audit.chain import GENESIS_HASH, chain_hash, content_hash, format_time
from torres_audit.lifecycle import Lifecycle, Settings
from torres_game import events as ev
from torres_game.access import Credentials
from torres_game.app import create_app
from torres_game.http import schemas as s
from torres_game.http.schemas import ActionRequestSchema, plain_action_request
from torres_game.store.base import NewEvent, content_hashes, stamp
from torres_service.json_provider import OrjsonProvider, dumps_bytes

from .conftest import API_KEY, make_config

# -- request bodies ---------------------------------------------------------------------------

_json_leaf = (st.none() | st.booleans() | st.integers(-(2**70), 2**70)
              | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=4))
_json = st.recursive(_json_leaf, lambda inner: st.lists(inner, max_size=3)
                     | st.dictionaries(st.text(max_size=4), inner, max_size=3), max_leaves=6)
_ints = st.integers(-2, 5) | st.integers(-(2**70), 2**70)
_odd = (_json | _ints | st.booleans() | st.floats() | st.integers(0, 205).map(lambda n: "c" * n)
        | st.sampled_from(["", "c" * 200, "c" * 201, -1, 3, 4, 2**63]))
_actions = st.dictionaries(st.sampled_from(["from", "to", "at"]) | st.text(max_size=3), _json, max_size=3).flatmap(
    lambda rest: st.fixed_dictionaries({"type": st.text(max_size=6) | _odd}).map(lambda head: {**head, **rest}))
_valid_bodies = st.fixed_dictionaries({
    "seat": st.integers(0, 3),
    "action": _actions,
    "expected_version": st.integers(0, 10**6) | st.integers(0, 2**70),
    "command_id": st.integers(1, 200).map(lambda n: "c" * n) | st.text(min_size=1, max_size=8),
})


def _mutated(body: dict[str, Any], key: str, value: Any, delete: bool) -> dict[str, Any]:
    out = dict(body)
    if delete:
        out.pop(key, None)
    else:
        out[key] = value
    return out


# Mostly valid bodies with at most one field spoiled (replaced by an odd value, removed, or an extra field
# added), so the boundaries of every rule are reached; plus arbitrary JSON values.
_bodies = _valid_bodies | st.builds(
    _mutated, _valid_bodies, st.sampled_from(["seat", "action", "expected_version", "command_id", "extra"]),
    _odd, st.booleans(),
)


def _marshmallow_load(data: Any) -> dict[str, Any] | ValidationError:
    """The general load that ``plain_action_request`` stands in for (the schema's own override skipped)."""
    try:
        return Schema.load(ActionRequestSchema(), data)
    except ValidationError as exc:
        return exc


@settings(max_examples=600, deadline=None)
@given(_bodies | _json)
def test_plain_action_request_loads_what_marshmallow_loads(data: Any) -> None:
    general = _marshmallow_load(data)
    plain = plain_action_request(data)
    if plain is not None:
        assert not isinstance(general, ValidationError), general.messages
        assert plain == general
    loaded: Any
    try:
        loaded = ActionRequestSchema().load(data)
    except ValidationError as exc:
        loaded = exc
    if isinstance(general, ValidationError):
        assert isinstance(loaded, ValidationError) and loaded.messages == general.messages
    else:
        assert loaded == general


@pytest.mark.parametrize("body", [
    {"seat": 0, "action": {"type": "end_turn"}, "expected_version": 0, "command_id": "c"},
    {"seat": 3, "action": {"type": "move_knight", "from": "C3", "to": "C4"}, "expected_version": 12345,
     "command_id": "x" * 200},
])
def test_everyday_bodies_take_the_plain_path(body: dict[str, Any]) -> None:
    plain = plain_action_request(body)
    assert plain is not None and plain == _marshmallow_load(body)
    assert plain["action"] is not body["action"]  # a copy, as marshmallow's load makes


@pytest.mark.parametrize("body", [
    {"seat": True, "action": {"type": "end_turn"}, "expected_version": 0, "command_id": "c"},
    {"seat": 4, "action": {"type": "end_turn"}, "expected_version": 0, "command_id": "c"},
    {"seat": 0, "action": {"type": 1}, "expected_version": 0, "command_id": "c"},
    {"seat": 0, "action": {"type": "end_turn"}, "expected_version": -1, "command_id": "c"},
    {"seat": 0, "action": {"type": "end_turn"}, "expected_version": 0, "command_id": ""},
    {"seat": 0, "action": {"type": "end_turn"}, "expected_version": 0, "command_id": "x" * 201},
    {"seat": 0, "action": {"type": "end_turn"}, "expected_version": 0, "command_id": "c", "extra": 1},
    {"seat": 0, "action": {"type": "end_turn"}, "expected_version": 0},
])
def test_unusual_bodies_are_left_to_marshmallow(body: dict[str, Any]) -> None:
    assert plain_action_request(body) is None
    with pytest.raises(ValidationError):
        ActionRequestSchema().load(body)


# -- responses sent without the schema dump ---------------------------------------------------

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
    game = svc.create_game(Credentials(api_key=API_KEY), edition="rio_grande", master=False,
                           options={}, seats=[{"kind": "human"}] * players)
    tokens = [seat["token"] for seat in game["seats"]]
    rng = random.Random(players)
    result_schema, legal_schema = s.ActionResultSchema(), s.LegalActionsSchema()
    types: set[str] = set()
    for n in range(2000):
        seat = svc.current(game["game_id"]).to_move
        if seat is None:
            break
        creds = Credentials(token=tokens[seat])
        legal = svc.legal_actions(game["game_id"], creds)
        assert legal_schema.dump(legal) == legal
        result = svc.submit_action(game["game_id"], creds, seat=seat, action=rng.choice(legal["actions"]),
                                   expected_version=legal["version"], command_id=f"c{n}")
        assert result_schema.dump(result.body) == result.body
        types.update(event["type"] for event in result.body["events"])
    assert svc.current(game["game_id"]).to_move is None and "game_ended" in types


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


# -- the everyday dispatch of the hot endpoints ------------------------------------------------

def test_everyday_requests_skip_the_argument_layers_and_others_keep_them(
    sqlite_app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Well-formed action bodies and legal-actions without a query string bypass webargs; every other request
    gets the documented path, with its validation errors, exactly as before."""
    loads: list[Any] = []
    general_load = ActionRequestSchema.load

    def counting_load(self: ActionRequestSchema, data: Any, **kwargs: Any) -> Any:
        loads.append(data)
        return general_load(self, data, **kwargs)

    monkeypatch.setattr(ActionRequestSchema, "load", counting_load)
    client = sqlite_app.test_client()
    gid, auth = _two_player_game(client)
    plain = client.get(f"/v1/games/{gid}/legal-actions", headers=auth)
    with_query = client.get(f"/v1/games/{gid}/legal-actions?seat=0", headers=auth)
    assert plain.status_code == with_query.status_code == 200 and plain.get_json() == with_query.get_json()
    assert client.get(f"/v1/games/{gid}/legal-actions?seat=9", headers=auth).status_code == 400
    action = plain.get_json()["actions"][0]

    bad = [
        ({"seat": "0", "action": action, "expected_version": 1, "command_id": "a"}, "application/json"),
        ({"seat": 0, "action": action, "expected_version": 1, "command_id": "a", "x": 1}, "application/json"),
    ]
    for body, mimetype in bad:
        response = client.post(f"/v1/games/{gid}/actions", data=json.dumps(body), content_type=mimetype,
                               headers=auth)
        assert response.status_code == 400 and response.mimetype == "application/problem+json"
        assert response.get_json()["code"] == "validation_failed"
    broken = client.post(f"/v1/games/{gid}/actions", data=b"{not json", content_type="application/json",
                         headers=auth)
    assert broken.status_code == 400 and broken.get_json()["detail"] == "the body is not valid JSON"
    # a body that is not JSON is refused by the input guard (issue 26) before either path
    plain_text = client.post(f"/v1/games/{gid}/actions", data=json.dumps(bad[0][0]), content_type="text/plain",
                             headers=auth)
    assert plain_text.status_code == 415 and plain_text.get_json()["code"] == "unsupported_media_type"
    assert len(loads) == 2  # the two spoiled bodies; neither the broken JSON nor the text ever loads

    good = {"seat": 0, "action": action, "expected_version": 1, "command_id": "a"}
    accepted = client.post(f"/v1/games/{gid}/actions", json=good, headers=auth)
    assert accepted.status_code == 201 and len(loads) == 2
    conflict = client.post(f"/v1/games/{gid}/actions", json={**good, "command_id": "b"}, headers=auth)
    assert conflict.status_code == 409 and conflict.get_json()["current_version"] == 2 and len(loads) == 2
