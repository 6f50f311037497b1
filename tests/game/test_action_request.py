"""An action request has one validator: the schema the OpenAPI document publishes for it, compiled
(``torres_service.schemas.DocumentedBody``). These tests hold that validator to the document, read by an
independent implementation (the ``jsonschema`` package), and the document to the rules' wire form."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from flask import Flask
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import validators

import torres_rules as tr
from torres_game.app import create_app
from torres_game.http.games import ACTION_BODY
from torres_game.http.schemas import ACTION_REQUEST
from torres_service.errors import ValidationFailed
from torres_service.schemas import DocumentedBody, _draft4

from .conftest import API_KEY, make_config

_json_leaf = (st.none() | st.booleans() | st.integers(-(2**70), 2**70)
              | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=4))
_json = st.recursive(_json_leaf, lambda inner: st.lists(inner, max_size=3)
                     | st.dictionaries(st.text(max_size=4), inner, max_size=3), max_leaves=6)
_ints = st.integers(-2, 5) | st.integers(-(2**70), 2**70)
_odd = (_json | _ints | st.booleans() | st.floats() | st.integers(0, 205).map(lambda n: "c" * n)
        | st.sampled_from(["", "c" * 200, "c" * 201, "c\n", -1, 3, 4, 2**53, 2**63, 1.0, "\ud800"]))
_FIELDS = ("at", "from", "to", "stack", "card", "rest", "order", "spread")
_values = (st.none() | st.booleans() | st.integers(-(10**6), 10**6) | st.text(max_size=5)
           | st.lists(st.integers(-5, 50) | st.text(max_size=3), max_size=4))
_actions = st.fixed_dictionaries(
    {"type": st.from_regex(r"[a-z][a-z0-9_]{0,10}", fullmatch=True) | st.sampled_from(["end_turn", "build"])},
    optional={name: _values for name in _FIELDS}) | st.dictionaries(
    st.sampled_from(["type", *_FIELDS]) | st.text(max_size=3), _values | _json, max_size=3)
_valid_bodies = st.fixed_dictionaries({
    "seat": st.integers(0, 3),
    "action": _actions,
    "expected_version": st.integers(0, 10**6) | st.integers(0, 2**70),
    "command_id": st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_.:@-]{0,20}", fullmatch=True)
    | st.integers(1, 200).map(lambda n: "c" * n) | st.text(min_size=1, max_size=8),
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


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Flask:
    return create_app(make_config(f"sqlite:///{tmp_path_factory.mktemp('actions') / 'g.sqlite3'}"))


def _whole_match(validator: Any, pattern: str, instance: Any, schema: Any) -> Any:
    """ECMA-262's reading of the document's ``^...$`` patterns: ``$`` is the end of the text. (The package reads
    them with Python's ``re.search``, where ``$`` also matches before a final newline.)"""
    if isinstance(instance, str) and not re.search(pattern.removesuffix("$") + r"\Z", instance):
        yield jsonschema.ValidationError(f"{instance!r} does not match {pattern!r}")


_Oracle = validators.extend(jsonschema.Draft4Validator, {"pattern": _whole_match})


def _has_surrogate(value: Any) -> bool:
    try:
        json.dumps(value, ensure_ascii=False).encode()
    except UnicodeEncodeError:
        return True
    return False


@settings(max_examples=800, deadline=None)
@given(_bodies | _json)
def test_the_validator_takes_exactly_what_the_document_takes(app: Flask, data: Any) -> None:
    documented = app.test_client().get("/openapi.json").get_json()["components"]["schemas"][ACTION_REQUEST]
    # A lone surrogate cannot be carried by JSON text in UTF-8: the document leaves it out of its patterns, the
    # validator refuses it.
    expected = _Oracle(_draft4(documented)).is_valid(data) and not _has_surrogate(data)
    check: DocumentedBody = app.extensions[ACTION_BODY]
    try:
        loaded = check.load(data)
    except ValidationFailed as refused:
        assert not expected, refused.extras
        assert refused.extras["errors"] and all(refused.extras["errors"].values())
        if isinstance(data, dict) and data:
            assert set(refused.extras["errors"]) <= set(data) | {"seat", "action", "expected_version",
                                                                "command_id", "_schema"}
    else:
        assert expected
        assert loaded is data


@pytest.mark.parametrize(("spoil", "field"), [
    ({"seat": True}, "seat"), ({"seat": 4}, "seat"), ({"seat": 1.0}, "seat"), ({"seat": "1"}, "seat"),
    ({"action": {"type": 1}}, "action"), ({"action": {"at": "C3"}}, "action"),
    ({"action": {"type": "build", "colour": "red"}}, "action"), ({"action": {"type": "build", "at": 1.5}}, "action"),
    ({"action": {"type": "build", "at": {"x": 1}}}, "action"), ({"action": {"type": "a", "at": "x\ud800"}}, "action"),
    ({"expected_version": -1}, "expected_version"), ({"expected_version": 2**53}, "expected_version"),
    ({"command_id": ""}, "command_id"), ({"command_id": "x" * 201}, "command_id"),
    ({"command_id": "abc\n"}, "command_id"), ({"extra": 1}, "extra"),
])
def test_a_spoiled_field_is_named(app: Flask, spoil: dict[str, Any], field: str) -> None:
    body = {"seat": 0, "action": {"type": "end_turn"}, "expected_version": 0, "command_id": "c", **spoil}
    with pytest.raises(ValidationFailed) as refused:
        app.extensions[ACTION_BODY].load(body)
    assert field in refused.value.extras["errors"]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_legal_action_is_a_documented_action(app: Flask, players: int) -> None:
    """The document lists the fields of the rules' wire form: every action the rules offer, in every stage of
    random games, passes the validator unchanged."""
    check: DocumentedBody = app.extensions[ACTION_BODY]
    for seed in range(3):
        rng, state = random.Random(seed), tr.new_game(players=players, seed=seed)
        version = 0
        while not tr.is_over(state):
            actions = tr.legal_actions(state)
            for action in actions:
                body = {"seat": 0, "action": action, "expected_version": version, "command_id": f"c{version}"}
                assert check.load(body) is body
            state, version = tr.apply(state, rng.choice(actions)), version + 1


def test_everything_but_a_valid_body_is_refused_over_http(tmp_path: Path) -> None:
    """Over HTTP: a spoiled body is 400 with its field named and changes nothing; a body that is not JSON is the
    input guard's 415; a valid one is 201."""
    client = create_app(make_config(f"sqlite:///{tmp_path / 'g.sqlite3'}")).test_client()
    created = client.post("/v1/games", json={"seats": [{"kind": "human"}, {"kind": "human"}]},
                          headers={"X-API-Key": API_KEY}).get_json()
    gid, auth = created["game_id"], {"Authorization": f"Bearer {created['seats'][0]['token']}"}
    action = client.get(f"/v1/games/{gid}/legal-actions", headers=auth).get_json()["actions"][0]
    good = {"seat": 0, "action": action, "expected_version": 1, "command_id": "a"}
    for spoiled, field in (({**good, "seat": "0"}, "seat"), ({**good, "x": 1}, "x"), ([good], "_schema")):
        response = client.post(f"/v1/games/{gid}/actions", json=spoiled, headers=auth)
        assert response.status_code == 400 and response.mimetype == "application/problem+json"
        assert response.get_json()["code"] == "validation_failed" and field in response.get_json()["errors"]
    assert client.post(f"/v1/games/{gid}/actions", data=json.dumps(good), content_type="text/plain",
                       headers=auth).status_code == 415
    assert client.get(f"/v1/games/{gid}").get_json()["version"] == 1
    assert client.post(f"/v1/games/{gid}/actions", json=good, headers=auth).status_code == 201
