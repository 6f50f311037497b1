"""The one definition of identifiers, text, booleans and integers that both services use."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from marshmallow import Schema, ValidationError

from torres_service.fields import (
    COMMAND_ID,
    GAME_ID,
    MAX_INT,
    PLAYER_ID,
    TICKET_ID,
    PlainObject,
    StrictBoolean,
    identifier,
    integer,
    plain_json,
    text,
)


@pytest.mark.parametrize("kind", [PLAYER_ID, GAME_ID, COMMAND_ID])
@pytest.mark.parametrize("value", ["bad_x\n", "bad_x\r\n", "\nbad_x", "bad\x00x", "bad x", "", "-x", "x\u202e",
                                   "\ud800", "x/y", "x" * 201])
def test_identifiers_are_matched_whole(kind: Any, value: str) -> None:
    assert not kind.accepts(value)


@pytest.mark.parametrize("value", ["alice", "p1", "ai:5d0c8e4a-7a51-4b52-9e7e-3f1d2c6b8a90:17", "a.b@c-d_e"])
def test_everyday_identifiers_pass(value: str) -> None:
    assert PLAYER_ID.accepts(value) and GAME_ID.accepts(value) and COMMAND_ID.accepts(value)


def test_ticket_ids_are_exactly_32_lowercase_hex() -> None:
    assert TICKET_ID.accepts("0123456789abcdef" * 2)
    assert not any(TICKET_ID.accepts(v) for v in ["0123456789ABCDEF" * 2, "0" * 31, "0" * 32 + "\n", 1])


@given(st.text())
def test_an_accepted_identifier_is_plain_ascii_of_its_length(value: str) -> None:
    if PLAYER_ID.accepts(value):
        assert value.isascii() and value.isprintable() and " " not in value and 1 <= len(value) <= 64


class _Body(Schema):
    flag = StrictBoolean()
    count = integer(strict=True)
    player = identifier(PLAYER_ID)
    blob = PlainObject()


@pytest.mark.parametrize("flag", ["yes", "on", 1, 0, "TRUE", "true", None, [], {}])
def test_booleans_are_json_booleans_only(flag: Any) -> None:
    with pytest.raises(ValidationError):
        _Body().load({"flag": flag})
    assert _Body().load({"flag": True}) == {"flag": True}


@pytest.mark.parametrize("count", [MAX_INT + 1, -1, "7", 1.5, True])
def test_integers_are_bounded_and_strict_in_bodies(count: Any) -> None:
    with pytest.raises(ValidationError):
        _Body().load({"count": count})


def test_the_document_carries_the_same_rule() -> None:
    assert PLAYER_ID.openapi() == {"type": "string", "pattern": "^[A-Za-z0-9][A-Za-z0-9_.:@-]*$", "minLength": 1,
                                   "maxLength": 64}
    field = _Body().fields["player"]
    assert field.metadata["pattern"] == PLAYER_ID.openapi()["pattern"]


@pytest.mark.parametrize(("blob", "ok"), [
    ({"type": "move_knight", "from": "C3", "to": "C4", "spread": [0, 1]}, True),
    ({"type": "x", "nested": {"deeper": [None, True, 1.5, ""]}}, True),
    ({"type": "x\x00"}, False), ({"type": "\ud800"}, False), ({"Type": "x"}, False), ({"a b": 1}, False),
    ({"a": "x" * 501}, False), ({"a": 2**60}, False), ({"a": list(range(101))}, False),
    ({"a": [[[[[[[[[1]]]]]]]]]}, False), ({"a": "\u202eevil"}, False),
])
def test_free_form_objects(blob: dict[str, Any], ok: bool) -> None:
    assert (plain_json(blob) is None) is ok
    if ok:
        assert _Body().load({"blob": blob}) == {"blob": blob}
    else:
        with pytest.raises(ValidationError):
            _Body().load({"blob": blob})


def test_text_fields_take_prose_but_not_what_hides_or_breaks_it() -> None:
    class Reason(Schema):
        reason = text(max_length=40)

    assert Reason().load({"reason": "left the table — ¡adiós! \u200f"}) == {"reason": "left the table — ¡adiós! \u200f"}
    for bad in ["a\x00b", "line\nbreak", "\u202eevil", "\ud800", "x" * 41]:
        with pytest.raises(ValidationError):
            Reason().load({"reason": bad})
