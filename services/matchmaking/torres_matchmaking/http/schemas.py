"""Request and response schemas (marshmallow). Unknown fields in a body are refused (RAISE): a ticket's body
does not name its player (the player token does), so a ``player_id`` in it is 400 like any typo."""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError, fields, validate, validates

from torres_matchmaking.config import EDITIONS, PLAYER_COUNTS
from torres_service.fields import DISPLAY_NAME, PLAYER_ID, Kind, StrictBoolean, identifier, integer, url
from torres_service.schemas import ListQuerySchema, QuerySchema, StrictSchema
from torres_service.schemas import ProblemSchema as BaseProblemSchema

STATUSES = ("queued", "matched", "cancelled", "expired")


#: A stream ticket as issued (``secrets.token_urlsafe(32)``: 43 characters), with room to change its length.
STREAM_TICKET = Kind("stream ticket", "[A-Za-z0-9_-]+", 128, rule="letters, digits, _ and -")


class CreateTicketSchema(StrictSchema):
    player_counts = fields.List(
        fields.Integer(strict=True, validate=validate.OneOf(PLAYER_COUNTS, error="a game has 2 to 4 players")),
        required=True, validate=validate.Length(min=1, max=3), metadata={"uniqueItems": True})
    edition = fields.String(load_default="rio_grande", validate=validate.OneOf(EDITIONS))
    master = StrictBoolean(load_default=False)
    max_wait_seconds = fields.Float(
        allow_none=True, validate=validate.Range(min=0, max=3600),
        metadata={"description": "seconds before AI seats may complete the game; null = humans only "
                                 "(default: the server's MM_DEFAULT_MAX_WAIT); at most the ticket's lifetime "
                                 "(ttl_seconds, else the server's default), or 400"})
    ttl_seconds = fields.Float(validate=validate.Range(min=1, max=3600),
                               metadata={"description": "the ticket expires if unmatched this long (default 300)"})
    callback_url = url(description="POSTed the ticket once it is matched, cancelled or expired (signed: "
                                   "X-Torres-Signature = sha256=HMAC(secret, X-Torres-Timestamp + '.' + body); "
                                   "retried with back-off until a 2xx; at least once, dedupe by "
                                   "X-Torres-Delivery). Only when the server has a webhook secret.")

    @validates("player_counts")
    def _distinct(self, value: list[int], **_: Any) -> None:
        if len(set(value)) != len(value):
            raise ValidationError("player counts must be distinct")


class TicketSchema(Schema):
    ticket_id = fields.String()
    player_id = fields.String()
    status = fields.String(metadata={"enum": list(STATUSES)})
    edition = fields.String()
    master = fields.Boolean()
    player_counts = fields.List(fields.Integer())
    rating = fields.Float(metadata={"description": "the player's mu when the ticket was created"})
    max_wait_seconds = fields.Float(allow_none=True)
    created_at = fields.Float(metadata={"description": "Unix time"})
    expires_at = fields.Float()
    ended_at = fields.Float()
    callback_url = fields.String(metadata={"description": "when the ticket has one"})
    game_id = fields.String(metadata={"description": "matched only"})
    seat = fields.Integer(metadata={"description": "matched only"})
    seat_token = fields.String(metadata={"description": "matched only: the secret seat token for the game service"})


class TicketWaitArgs(QuerySchema):
    status = fields.String(validate=validate.OneOf(STATUSES), metadata={
        "description": "return as soon as the ticket's status differs from this one (omit: at once)"})
    timeout = fields.Float(load_default=25.0, validate=validate.Range(min=0, max=60))


class TicketStreamArgs(QuerySchema):
    timeout = fields.Float(load_default=300.0, validate=validate.Range(min=0, max=3600),
                           metadata={"description": "close the stream after this many seconds"})
    stream_ticket = identifier(STREAM_TICKET, description=(
        "a single-use stream ticket (POST /v1/tickets/{ticket_id}/stream-tickets) instead of the Authorization "
        "header, for EventSource; unknown, used, expired or another ticket's: 401"))


class StreamTicketSchema(Schema):
    stream_ticket = fields.String(metadata={"description": "pass as ?stream_ticket= to the ticket's stream, once"})
    expires_in = fields.Float(metadata={"description": "seconds it stays valid"})
    stream_url = fields.String(metadata={"description": "the stream's path with the ticket in its query"})


class DevPlayerTokenSchema(StrictSchema):
    player_id = identifier(PLAYER_ID, required=True, description="the player the token names (its sub)")
    name = identifier(DISPLAY_NAME, description="what the portal calls the player (the token's name claim): their "
                      "seats' display name in the games they are matched into")


class PlayerTokenSchema(Schema):
    token = fields.String(metadata={"description": "the player token: send it as Authorization: Bearer <token>"})
    token_type = fields.String(metadata={"enum": ["Bearer"]})
    tenant = fields.String()
    player_id = fields.String()
    expires_at = fields.Integer(metadata={"description": "Unix time"})


class RatingSchema(Schema):
    player_id = fields.String()
    mu = fields.Float()
    sigma = fields.Float()
    ordinal = fields.Float(metadata={"description": "mu - 3 sigma: the leaderboard's order"})
    games = fields.Integer()


class LeaderboardEntrySchema(RatingSchema):
    rank = fields.Integer()


class LeaderboardSchema(Schema):
    entries = fields.List(fields.Nested(LeaderboardEntrySchema))
    total = fields.Integer()
    limit = fields.Integer()
    offset = fields.Integer()


class PageArgs(ListQuerySchema):
    limit = integer(load_default=50, minimum=1, maximum=500)
    offset = integer(load_default=0)


class QueuesSchema(Schema):
    queues = fields.Dict(keys=fields.String(), values=fields.Integer())


class HealthSchema(Schema):
    status = fields.String(metadata={"enum": ["ok"]})


class ReadySchema(Schema):
    status = fields.String(metadata={"enum": ["ready"]})
    redis = fields.String(metadata={"enum": ["embedded", "external"]})
    game_service = fields.String(metadata={"enum": ["ready"]})


class ProblemSchema(BaseProblemSchema):
    ticket_id = fields.String(metadata={"description": "live_ticket_exists: the live ticket; malformed_id: the id "
                                                        "sent (first 80 characters)"})
    player_id = fields.String(metadata={"description": "malformed_id: the id sent (first 80 characters)"})
    ticket_status = fields.String(metadata={"description": "ticket_not_cancellable: the current status"})
    scope = fields.String(metadata={"description": "insufficient_scope: the scope the key lacks"})
