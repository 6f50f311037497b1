"""Request and response schemas (marshmallow). Unknown fields in a body are refused (RAISE)."""

from __future__ import annotations

from typing import Any

from marshmallow import EXCLUDE, Schema, ValidationError, fields, validate, validates_schema

from torres_service.schemas import ProblemSchema as BaseProblemSchema
from torres_service.schemas import QuerySchema, StrictSchema

EDITIONS = ("rio_grande", "ravensburger", "yucata")
LEVELS = ("easy", "medium", "hard")


class SeatSpecSchema(StrictSchema):
    kind = fields.String(required=True, validate=validate.OneOf(("human", "ai")))
    player_id = fields.String(validate=validate.Length(min=1, max=200))
    level = fields.String(validate=validate.OneOf(LEVELS))

    @validates_schema
    def _by_kind(self, data: dict[str, Any], **_: Any) -> None:
        if data["kind"] == "human" and "level" in data:
            raise ValidationError("only AI seats have a level", "level")
        if data["kind"] == "ai" and "player_id" in data:
            raise ValidationError("AI seats have no player_id", "player_id")


class ClockSchema(StrictSchema):
    """Time controls (issue 15): a limit per turn and/or a Fischer bank; seconds, so days work too."""

    turn_seconds = fields.Float(validate=validate.Range(min=0.01, max=30 * 86400),
                                metadata={"description": "limit per turn"})
    bank_seconds = fields.Float(validate=validate.Range(min=0.01, max=90 * 86400),
                                metadata={"description": "time bank per seat for the whole game"})
    increment_seconds = fields.Float(validate=validate.Range(min=0, max=30 * 86400),
                                     metadata={"description": "added to a seat's bank after each of its turns"})


class TimeoutPolicySchema(StrictSchema):
    policy = fields.String(required=True, validate=validate.OneOf(("forfeit", "ai")),
                           metadata={"description": "forfeit: the seat leaves (knights stay, passes, ranks last); "
                                                    "ai: the AI plays the seat"})
    scope = fields.String(validate=validate.OneOf(("turn", "game")),
                          metadata={"description": "with ai: for the rest of the turn (default) or the game"})
    level = fields.String(validate=validate.OneOf(LEVELS), metadata={"description": "with ai: the AI's level"})


class CreateGameSchema(StrictSchema):
    edition = fields.String(load_default="rio_grande", validate=validate.OneOf(EDITIONS))
    master = fields.Boolean(load_default=False)
    options = fields.Dict(keys=fields.String(), load_default=dict)
    seats = fields.List(fields.Nested(SeatSpecSchema), required=True, validate=validate.Length(min=2, max=4))
    clock = fields.Nested(ClockSchema, metadata={"description": "time controls; none: an untimed game"})
    timeout = fields.Nested(TimeoutPolicySchema, metadata={"description": "what a timeout does (default forfeit)"})
    undo = fields.Boolean(metadata={"description": "may the seat to move take back its actions (default true)"})


class SeatSchema(Schema):
    seat = fields.Integer()
    kind = fields.String()
    player_id = fields.String(allow_none=True)
    level = fields.String()
    token = fields.String(metadata={"description": "secret seat token (human seats, creation only)"})


class GameCreatedSchema(Schema):
    game_id = fields.String()
    version = fields.Integer()
    seed_commitment = fields.String(metadata={"description": "SHA-256 of the secret seed, revealed at the end"})
    seats = fields.List(fields.Nested(SeatSchema))


class GameSummarySchema(Schema):
    game_id = fields.String()
    status = fields.String()
    version = fields.Integer()
    edition = fields.String()
    master = fields.Boolean()
    options = fields.Dict()
    seats = fields.List(fields.Nested(SeatSchema))
    stage = fields.String(allow_none=True)
    phase = fields.Integer(allow_none=True)
    round = fields.Integer(allow_none=True)
    to_move = fields.Integer(allow_none=True)
    scores = fields.List(fields.Integer())
    winner = fields.Integer(allow_none=True)
    deadline = fields.String(allow_none=True, metadata={"description": "when the seat to move runs out of time"})
    created_at = fields.String()


class GameListSchema(Schema):
    games = fields.List(fields.Nested(GameSummarySchema))
    limit = fields.Integer()
    offset = fields.Integer()


class CreationHeaders(Schema):
    """``Idempotency-Key`` (IETF draft-ietf-httpapi-idempotency-key-header): the same key with the same body
    creates one game and answers every retry with the original 201, tokens included."""

    class Meta:
        unknown = EXCLUDE  # every other request header

    idempotency_key = fields.String(data_key="Idempotency-Key", validate=validate.Length(min=1, max=200),
                                    metadata={"description": "makes retries of this creation safe"})


class ListGamesArgs(QuerySchema):
    status = fields.String(validate=validate.OneOf(("active", "over")))
    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=500))
    offset = fields.Integer(load_default=0, validate=validate.Range(min=0))


class SeatArgs(QuerySchema):
    seat = fields.Integer(validate=validate.Range(min=0, max=3),
                          metadata={"description": "an AI seat (service key) or any seat (admin key)"})


class PageArgs(QuerySchema):
    after = fields.Integer(load_default=0, validate=validate.Range(min=0))
    limit = fields.Integer(load_default=100, validate=validate.Range(min=1, max=1000))


class StateArgs(QuerySchema):
    version = fields.Integer(validate=validate.Range(min=1))


class WaitArgs(QuerySchema):
    version = fields.Integer(required=True, validate=validate.Range(min=0))
    timeout = fields.Float(load_default=25.0, validate=validate.Range(min=0, max=60))


class StreamArgs(QuerySchema):
    version = fields.Integer(load_default=0, validate=validate.Range(min=0))
    timeout = fields.Float(load_default=300.0, validate=validate.Range(min=0, max=3600),
                           metadata={"description": "close the stream after this many seconds"})


class EventSchema(Schema):
    position = fields.Integer()
    game_id = fields.String()
    version = fields.Integer()
    type = fields.String()
    payload = fields.Dict()
    schema_version = fields.Integer()
    created_at = fields.String()
    command_id = fields.String()
    prev_hash = fields.String()
    hash = fields.String()


class EventPageSchema(Schema):
    game_id = fields.String()
    version = fields.Integer()
    events = fields.List(fields.Nested(EventSchema))
    next_after = fields.Integer()
    redacted = fields.Boolean()


_ACTION_REQUEST_FIELDS = frozenset(("seat", "action", "expected_version", "command_id"))


def plain_action_request(data: Any) -> dict[str, Any] | None:
    """What :class:`ActionRequestSchema` loads from ``data`` when ``data`` is the everyday well-formed body,
    else None (marshmallow then decides, and words the errors).

    The same rules, checked by hand, accepting only exact types (``int``, ``str``, ``dict``): every action
    request is one of these, and the generic marshmallow load was a measurable share of its CPU.
    ``tests/game/test_hot_path.py`` checks that whatever this accepts, the schema loads to the same value.
    """
    if type(data) is not dict or data.keys() != _ACTION_REQUEST_FIELDS:
        return None
    seat, action, expected, command_id = data["seat"], data["action"], data["expected_version"], data["command_id"]
    if type(seat) is not int or not 0 <= seat <= 3 or type(expected) is not int or expected < 0:
        return None
    if type(command_id) is not str or not 1 <= len(command_id) <= 200:
        return None
    if type(action) is not dict or type(action.get("type")) is not str or any(type(k) is not str for k in action):
        return None
    return {"seat": seat, "action": dict(action), "expected_version": expected, "command_id": command_id}


class ActionRequestSchema(StrictSchema):
    seat = fields.Integer(required=True, strict=True, validate=validate.Range(min=0, max=3))
    action = fields.Dict(keys=fields.String(), required=True)
    expected_version = fields.Integer(required=True, strict=True, validate=validate.Range(min=0))
    command_id = fields.String(required=True, validate=validate.Length(min=1, max=200))

    @validates_schema
    def _action_has_type(self, data: dict[str, Any], **_: Any) -> None:
        if not isinstance(data.get("action", {}).get("type"), str):
            raise ValidationError("an action needs a string 'type'", "action")

    def load(self, data: Any, *, many: bool | None = None, partial: Any = None,  # type: ignore[override]
             unknown: Any = None) -> Any:
        """:func:`plain_action_request` first (the hot path), the full marshmallow load otherwise."""
        if many is None and partial is None and unknown is None:
            plain = plain_action_request(data)
            if plain is not None:
                return plain
        return super().load(data, many=many, partial=partial, unknown=unknown)


class ActionResultSchema(Schema):
    version = fields.Integer()
    events = fields.List(fields.Nested(EventSchema))
    legal_actions = fields.Raw(
        metadata={"description": "the acting seat's legal actions at the new version (empty when its turn is "
                                 "over): saves a GET /legal-actions while the seat keeps moving"})


class ViewSchema(Schema):
    version = fields.Integer()
    seat = fields.Integer(allow_none=True)
    view = fields.Dict()
    lifecycle = fields.Dict(metadata={"description": "public online-play state: clock (banks, deadline of the "
                                                     "seat to move), forfeited and AI-played seats, undo"})


class LegalActionsSchema(Schema):
    version = fields.Integer()
    seat = fields.Integer()
    actions = fields.Raw(metadata={"description": "list of actions in wire form, in the rules' stable order"})


class StateSchema(Schema):
    version = fields.Integer()
    seat = fields.Integer(allow_none=True)
    position = fields.Dict(metadata={"description": "full position JSON (admin key or game over)"})
    view = fields.Dict(metadata={"description": "the seat's view at that version (seat token)"})


class InconsistencySchema(Schema):
    version = fields.Integer()
    reason = fields.String()


class VerifySchema(Schema):
    game_id = fields.String()
    ok = fields.Boolean()
    events = fields.Integer()
    version = fields.Integer()
    first_inconsistency = fields.Nested(InconsistencySchema, allow_none=True)


class WaitSchema(Schema):
    game_id = fields.String()
    version = fields.Integer()
    changed = fields.Boolean()


class NotificationSchema(Schema):
    position = fields.Integer()
    game_id = fields.String()
    version = fields.Integer()
    type = fields.String()
    payload = fields.Dict()
    created_at = fields.String()


class NotificationPageSchema(Schema):
    notifications = fields.List(fields.Nested(NotificationSchema))
    next_after = fields.Integer()


class ProblemSchema(BaseProblemSchema):
    current_version = fields.Integer(metadata={"description": "409 version_conflict only"})
