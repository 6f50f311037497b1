"""Request and response schemas (marshmallow). Unknown fields in a body are refused (RAISE)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from marshmallow import EXCLUDE, Schema, ValidationError, fields, validate, validates_schema

from torres_game.access import SPECTATOR_TTL_DEFAULT, SPECTATOR_TTL_MAX
from torres_game.store.base import DEFAULT_VISIBILITY, VISIBILITIES
from torres_online.lifecycle import AI_LEVELS
from torres_rules.editions import EDITIONS, OPTION_CHOICES
from torres_service.fields import (
    COMMAND_ID,
    DISPLAY_NAME,
    GAME_ID,
    IDEMPOTENCY_KEY,
    MAX_INT,
    MAX_VERSION,
    NAME,
    PLAYER_ID,
    TEXT,
    Kind,
    PlainObject,
    StrictBoolean,
    identifier,
    integer,
)
from torres_service.schemas import ListQuerySchema, QuerySchema, StrictSchema
from torres_service.schemas import ProblemSchema as BaseProblemSchema

TENANT = Kind("tenant", GAME_ID.pattern, 64, rule="letters, digits and _.:@- (not first)")
VISIBILITY_DOC = ("who may watch: public (anyone with the id; the portal may list it in its lobby), unlisted "
                  "(anyone with the id, never advertised; the default), private (seat tokens, the tenant's key, "
                  "spectator tokens the tenant issues; everyone else gets 404)")


#: A portal's own id for a game: creating a game with an id the tenant used before returns that game.
EXTERNAL_ID = Kind("external id", IDEMPOTENCY_KEY.pattern, 200, rule=IDEMPOTENCY_KEY.rule)
#: A label a portal files a game under ("tournament-7", "friday_league"); a game holds at most MAX_LABELS.
LABEL = Kind("label", IDEMPOTENCY_KEY.pattern, 64, rule=IDEMPOTENCY_KEY.rule)
MAX_LABELS = 16


def _distinct(values: list[Any], what: str) -> None:
    if len(set(values)) != len(values):
        raise ValidationError(f"each {what} at most once")


class HumanSeatSpecSchema(StrictSchema):
    kind = fields.String(required=True, validate=validate.OneOf(("human",)))
    player_id = identifier(PLAYER_ID, description="the matchmaker's or portal's id of the player")
    display_name = identifier(DISPLAY_NAME, description="what clients call the seat (default: Seat <n>)")


class AiSeatSpecSchema(StrictSchema):
    kind = fields.String(required=True, validate=validate.OneOf(("ai",)))
    level = fields.String(validate=validate.OneOf(AI_LEVELS), metadata={"description": "default: easy"})
    display_name = identifier(DISPLAY_NAME, description="what clients call the seat (default: Seat <n>)")


_SEAT_SPECS = {"human": HumanSeatSpecSchema(), "ai": AiSeatSpecSchema()}


class SeatSpec(fields.Field):
    """A seat of a new game: human (optional ``player_id``, no ``level``) or AI (optional ``level``, no
    ``player_id``), told apart by ``kind`` and documented as a ``oneOf`` with that discriminator."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise ValidationError("a seat is an object")
        spec = _SEAT_SPECS.get(value.get("kind")) if isinstance(value.get("kind"), str) else None
        if spec is None:
            raise ValidationError({"kind": ["must be one of: human, ai"]})
        return spec.load(value)


SEAT_SPEC_DOC = {
    "oneOf": [{"$ref": "#/components/schemas/HumanSeatSpec"}, {"$ref": "#/components/schemas/AiSeatSpec"}],
    "discriminator": {"propertyName": "kind", "mapping": {"human": "#/components/schemas/HumanSeatSpec",
                                                          "ai": "#/components/schemas/AiSeatSpec"}},
}


class ClockSchema(StrictSchema):
    """Time controls: a limit per turn and/or a Fischer bank; seconds, so days work too."""

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
    level = fields.String(validate=validate.OneOf(AI_LEVELS), metadata={"description": "with ai: the AI's level"})


#: The rules' options, each with its values, from the rules package. ``deck: hand`` is left out: it is the master
#: version's deck, which ``master: true`` chooses by itself (asked for without it: 400).
OPTIONS_DOC = {
    "description": "single rule options overriding the edition's (docs/rules.md, docs/rules-engine.md)",
    "additionalProperties": False,
    "properties": {name: {"type": "boolean"} if choices == (True, False) else
                   {"type": "string", "enum": [c for c in choices if (name, c) != ("deck", "hand")]}
                   for name, choices in OPTION_CHOICES.items()},
}


class CreateGameSchema(StrictSchema):
    edition = fields.String(load_default="rio_grande", validate=validate.OneOf(EDITIONS))
    master = StrictBoolean(load_default=False)
    options = PlainObject(load_default=dict, metadata={"openapi": OPTIONS_DOC})
    seats = fields.List(SeatSpec(metadata={"openapi": SEAT_SPEC_DOC}), required=True,
                        validate=validate.Length(min=2, max=4))
    clock = fields.Nested(ClockSchema, metadata={"description": "time controls; none: an untimed game"})
    timeout = fields.Nested(TimeoutPolicySchema, metadata={"description": "what a timeout does (default forfeit)"})
    undo = StrictBoolean(metadata={"description": "may the seat to move take back its actions (default true)"})
    visibility = fields.String(load_default=DEFAULT_VISIBILITY, validate=validate.OneOf(VISIBILITIES),
                               metadata={"description": VISIBILITY_DOC})
    tenant = identifier(TENANT, description="the tenant the game is for: only with an internal service's key (the "
                                            "matcher), which belongs to no tenant; a tenant's key creates its own")
    external_id = identifier(EXTERNAL_ID, description="the portal's own id for the game, unique per tenant: a "
                                                      "creation with an id used before answers that game again "
                                                      "(as an Idempotency-Key does; with both, this decides); sent by "
                                                      "a tenant's key only (an internal key's: 400)")
    labels = fields.List(identifier(LABEL), load_default=list,
                         validate=[validate.Length(max=MAX_LABELS), lambda labels: _distinct(labels, "label")],
                         metadata={"description": "what the portal files the game under; `GET /v1/games?label=` "
                                                  "lists a label's games", "uniqueItems": True})


class SeatSchema(Schema):
    seat = fields.Integer()
    kind = fields.String()
    player_id = fields.String(allow_none=True)
    level = fields.String()
    display_name = fields.String(metadata={"description": "the portal's name for the seat, when it gave one"})
    token = fields.String(metadata={"description": "secret seat token (human seats, creation only)"})


class GameCreatedSchema(Schema):
    game_id = fields.String()
    version = fields.Integer()
    visibility = fields.String(metadata={"enum": list(VISIBILITIES)})
    seed_commitment = fields.String(metadata={"description": "SHA-256 of the secret seed, revealed at the end"})
    seats = fields.List(fields.Nested(SeatSchema))
    external_id = fields.String(allow_none=True)
    labels = fields.List(fields.String())


class GameSummarySchema(Schema):
    game_id = fields.String()
    status = fields.String()
    version = fields.Integer()
    visibility = fields.String(metadata={"enum": list(VISIBILITIES)})
    edition = fields.String()
    master = fields.Boolean()
    options = fields.Dict()
    seats = fields.List(fields.Nested(SeatSchema))
    stage = fields.String(allow_none=True)
    phase = fields.Integer(allow_none=True)
    round = fields.Integer(allow_none=True)
    to_move = fields.Integer(allow_none=True)
    scores = fields.List(fields.Integer())
    winner = fields.Integer(allow_none=True, metadata={
        "description": "the one seat ranked first; null while the game runs and when several seats share the first "
                       "place (an abandoned game with equal scores)"})
    winners = fields.List(fields.Integer(), metadata={
        "description": "every seat ranked first: one seat, several on a tie, none while the game runs"})
    deadline = fields.String(allow_none=True, metadata={"description": "when the seat to move runs out of time"})
    created_at = fields.String()
    external_id = fields.String(allow_none=True, metadata={"description": "the portal's own id for the game"})
    labels = fields.List(fields.String())


class GameListSchema(Schema):
    games = fields.List(fields.Nested(GameSummarySchema))
    limit = fields.Integer()
    next_cursor = fields.String(allow_none=True, metadata={
        "description": "pass it as `cursor` for the next page; null on the last page"})


class SpectatorTokenRequestSchema(StrictSchema):
    ttl_seconds = integer(load_default=SPECTATOR_TTL_DEFAULT, minimum=60, maximum=SPECTATOR_TTL_MAX,
                          metadata={"description": "how long the token reads the game (default one hour)"})


class SpectatorTokenSchema(Schema):
    game_id = fields.String()
    token = fields.String(metadata={"description": "send it as `Authorization: Bearer <token>` to read the game as "
                                                   "a spectator (private games included) until it expires"})
    expires_at = fields.String()


class SeatGenerationSchema(Schema):
    """A generation of a seat's token: what a reissue or a revocation made."""

    game_id = fields.String()
    seat = fields.Integer()
    generation = fields.Integer(metadata={"description": "1 for the first reissue; the creation's token is 0"})


class SeatTokenSchema(SeatGenerationSchema):
    token = fields.String(metadata={"description": "the seat's new token, shown this once (only its hash is kept); "
                                                   "every earlier token of the seat is now refused"})
    expires_at = fields.String()


class SeatTokenRevokedSchema(SeatGenerationSchema):
    revoked = fields.Boolean()


class StreamTicketSchema(Schema):
    game_id = fields.String()
    stream_ticket = fields.String(metadata={"description": "pass it once as `?stream_ticket=` to `/stream` or `/ws` "
                                                           "of this game; never a seat token in a URL"})
    expires_in = fields.Integer(metadata={"description": "seconds the ticket may wait before it is used"})
    stream_url = fields.String(metadata={"description": "this game's SSE stream with the ticket"})


class CreationHeaders(Schema):
    """``Idempotency-Key`` (IETF draft-ietf-httpapi-idempotency-key-header): the same key with the same body
    creates one game and answers every retry with the original 201, tokens included."""

    class Meta:
        unknown = EXCLUDE  # every other request header

    idempotency_key = identifier(IDEMPOTENCY_KEY, data_key="Idempotency-Key",
                                 description="makes retries of this creation safe")


class ListGamesArgs(ListQuerySchema):
    status = fields.String(validate=validate.OneOf(("active", "over")))
    player_id = identifier(PLAYER_ID, description="games with a seat of this player")
    visibility = fields.String(validate=validate.OneOf(VISIBILITIES))
    external_id = identifier(EXTERNAL_ID, description="the game with this portal id")
    label = identifier(LABEL, description="games filed under this label")
    created_after = fields.AwareDateTime(metadata={"description": "created strictly after (RFC 3339, with offset)"})
    created_before = fields.AwareDateTime(metadata={"description": "created strictly before (RFC 3339, with offset)"})
    cursor = fields.String(validate=validate.Length(max=400),
                           metadata={"description": "the `next_cursor` of the previous page"})
    limit = integer(load_default=50, minimum=1, maximum=500)

    @validates_schema(pass_original=True, skip_on_field_errors=False)
    def _no_offset(self, _data: dict[str, Any], original: Any, **_: Any) -> None:
        """Paging is by cursor: an ``offset`` (an unknown parameter, refused as any) is told what to send."""
        if isinstance(original, Mapping) and "offset" in original:
            raise ValidationError("offset paging was replaced by cursors: pass the previous page's next_cursor "
                                  "as cursor", "offset")


class SeatArgs(QuerySchema):
    seat = integer(maximum=3,
                   metadata={"description": "an AI seat (service key) or any seat (admin key)"})


class PageArgs(ListQuerySchema):
    after = integer(load_default=0)
    limit = integer(load_default=100, minimum=1, maximum=1000)


class StateArgs(QuerySchema):
    version = integer(minimum=1, maximum=MAX_VERSION)


class WaitArgs(QuerySchema):
    version = integer(required=True, maximum=MAX_VERSION)
    timeout = fields.Float(load_default=25.0, validate=validate.Range(min=0, max=60))


class StreamArgs(QuerySchema):
    version = integer(load_default=0, maximum=MAX_VERSION)
    stream_ticket = fields.String(validate=validate.Length(min=1, max=200), metadata={
        "description": "a single-use ticket from `POST .../stream-tickets`, for clients that cannot send headers "
                       "(browsers' EventSource); the stream then carries the reader's redacted events"})
    timeout = fields.Float(load_default=300.0, validate=validate.Range(min=0, max=3600),
                           metadata={"description": "close the stream after this many seconds"})


class ChainedEventSchema(Schema):
    """What every event of a game's chain shows: where it stands, what it holds, and its links."""

    version = fields.Integer()
    type = fields.String()
    payload = fields.Dict()
    schema_version = fields.Integer()
    created_at = fields.String()
    command_id = fields.String()
    prev_hash = fields.String()
    hash = fields.String()


class EventSchema(ChainedEventSchema):
    position = fields.Integer()
    game_id = fields.String()
    text = fields.String(metadata={"description": "the event in words for a move log (actions: the engine's "
                                                  "action_text of the payload as this reader sees it)"})


class EventPageSchema(Schema):
    game_id = fields.String()
    version = fields.Integer()
    events = fields.List(fields.Nested(EventSchema))
    next_after = fields.Integer()
    redacted = fields.Boolean()


_ACTION_SCALARS = [TEXT.openapi(), {"type": "integer", "minimum": -MAX_INT, "maximum": MAX_INT}]
_ACTION_VALUE = {"nullable": True, "anyOf": [
    *_ACTION_SCALARS, {"type": "boolean"}, {"type": "array", "maxItems": 100, "items": {"anyOf": _ACTION_SCALARS}}]}
ACTION_DOC = {
    "required": ["type"],
    # The fields of the wire form (docs/rules-contract.md, "Actions"), each holding what plain_json lets through (a
    # square, a card, a stack index, null, a list such as a spread or an order): a document-valid action reaches the
    # rules, which answer an illegal one 409. (OpenAPI 3.0 has no propertyNames, so the names are listed.)
    "properties": {"type": {**NAME.openapi(), "description": "the action's type, e.g. place_knight"},
                   **dict.fromkeys(("at", "from", "to", "stack", "card", "rest", "order", "spread"), _ACTION_VALUE)},
    "additionalProperties": False,
    "description": "an action in the rules package's wire form (docs/rules-contract.md)",
}


class ActionRequestSchema(StrictSchema):
    """Declares the body of ``POST /actions`` for the document; the service checks each body against the schema
    the document publishes, compiled (:data:`ACTION_REQUEST`, set up by the app from this declaration)."""

    seat = integer(required=True, strict=True, maximum=3)
    action = PlainObject(required=True, metadata={"openapi": ACTION_DOC})
    expected_version = integer(required=True, strict=True)
    command_id = identifier(COMMAND_ID, required=True, description="repeat it to retry safely")


#: The component name and request body of ``POST /actions`` in the document.
ACTION_REQUEST = "ActionRequest"
ACTION_REQUEST_BODY = {"required": True, "content": {"application/json": {
    "schema": {"$ref": f"#/components/schemas/{ACTION_REQUEST}"}}}}


class ActionResultSchema(Schema):
    version = fields.Integer()
    events = fields.List(fields.Nested(EventSchema))
    legal_actions = fields.Raw(
        metadata={"description": "the acting seat's legal actions at the new version (empty when its turn is "
                                 "over): saves a GET /legal-actions while the seat keeps moving"})


class CastleSchema(Schema):
    squares = fields.List(fields.String(), metadata={"description": "its squares, A1 B1 ... H8 order"})
    area = fields.Integer(metadata={"description": "base area (number of squares)"})
    king = fields.Boolean(metadata={"description": "the king stands in it"})


CASTLES_DESCRIPTION = ("the castles of the position (RULES 1), from the rules engine, ordered by their lowest "
                       "square; a client draws them from here instead of re-deriving them")


class ScoredCastleSchema(Schema):
    castle = fields.Integer(metadata={"description": "index into the response's `castles`"})
    area = fields.Integer()
    level = fields.Integer(metadata={"description": "highest level of the seat's knights in that castle"})
    points = fields.Integer(metadata={"description": "area x level"})


class SeatScoringSchema(Schema):
    seat = fields.Integer()
    castles = fields.List(fields.Nested(ScoredCastleSchema), metadata={"description": "each castle counted"})
    castle_points = fields.Integer()
    king_bonus = fields.Integer(metadata={"description": "5 / 10 / 15 for a knight at exactly the phase's level "
                                                         "in the king's castle"})
    master_points = fields.Integer(metadata={"description": "the master card's points (0 without one)"})
    collision = fields.Integer(metadata={"description": "squares added by the rule that no two players share a "
                                                        "positive score (RULES 8)"})
    gained = fields.Integer(metadata={"description": "castle_points + king_bonus + master_points + collision"})
    score = fields.Integer(metadata={"description": "the score after this scoring"})


class ScoringSchema(Schema):
    phase = fields.Integer()
    master_card = fields.String(allow_none=True)
    seats = fields.List(fields.Nested(SeatScoringSchema))


class ViewSchema(Schema):
    version = fields.Integer()
    seat = fields.Integer(allow_none=True)
    view = fields.Dict()
    castles = fields.List(fields.Nested(CastleSchema), metadata={"description": CASTLES_DESCRIPTION})
    preview = fields.Nested(ScoringSchema, allow_none=True, metadata={
        "description": "what the end of the current phase would pay if it ended in this position (the rules "
                       "engine's scoring breakdown, castles indexed into `castles`; public facts only, the same "
                       "for every reader); null during the setup and after the end"})
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
    view = fields.Dict(metadata={"description": "the seat's view at that version (seat token), or the "
                                                "spectator's (no credentials, game not over)"})
    castles = fields.List(fields.Nested(CastleSchema), metadata={"description": CASTLES_DESCRIPTION})
    scoring = fields.Nested(ScoringSchema, allow_none=True, metadata={
        "description": "when the event at this version ended a phase (the phase's last `end_turn`): that phase "
                       "scoring's breakdown per seat, computed by the rules engine; null at every other version"})


class InconsistencySchema(Schema):
    version = fields.Integer()
    reason = fields.String()


class VerifySchema(Schema):
    game_id = fields.String()
    ok = fields.Boolean()
    events = fields.Integer()
    version = fields.Integer()
    first_inconsistency = fields.Nested(InconsistencySchema, allow_none=True)


class RecordEventSchema(ChainedEventSchema):
    redacted = fields.Boolean(metadata={"description": "present (true) when the payload is withheld from the reader"})
    content_hash = fields.String(metadata={"description": "the withheld event's content hash (chain check)"})


class GameRecordSchema(Schema):
    """docs/audit.md, "The game record"."""

    format = fields.String(metadata={"description": "torres-game-record/1"})
    game_id = fields.String()
    status = fields.String(metadata={"description": "active | over"})
    reader = fields.Dict(metadata={"description": '{"kind": "full"} | {"kind": "seat", "seat": n} | '
                                                  '{"kind": "spectator"}'})
    creation = fields.Dict(metadata={"description": "the game_created payload"})
    seed = fields.String(allow_none=True, metadata={"description": "the revealed seed (decimal), once over"})
    result = fields.Dict(allow_none=True, metadata={"description": "the game_ended payload, once over"})
    events = fields.List(fields.Nested(RecordEventSchema))
    head = fields.Dict(metadata={"description": "{version, hash}: the last event"})
    signature = fields.Dict(metadata={"description": "{key: the service's vkey, note: the signed head (C2SP note)}"})
    inclusion = fields.Dict(allow_none=True,
                            metadata={"description": "the transparency log's proof, once there is one"})


class WaitSchema(Schema):
    game_id = fields.String()
    version = fields.Integer()
    changed = fields.Boolean()


class NotificationSchema(EventSchema):
    """An event of the notification feed: the log's event without its chain (the feed is for reacting, the
    event pages and the record are for checking)."""

    class Meta:
        exclude = ("schema_version", "command_id", "prev_hash", "hash")


class NotificationPageSchema(Schema):
    notifications = fields.List(fields.Nested(NotificationSchema))
    next_after = fields.Integer()


class WebhookDeliverySchema(Schema):
    """A webhook in the outbox with its delivery log (docs/integration.md)."""

    cursor = fields.Integer(metadata={"description": "pass as `after` to read the deliveries after this one"})
    delivery_id = fields.String(metadata={"description": "the X-Torres-Delivery id every attempt carries"})
    type = fields.String(metadata={"enum": ["game.created", "turn.started", "game.ended", "seat.timed_out",
                                            "seat.resigned", "game.abandoned"]})
    game_id = fields.String()
    created_at = fields.String(metadata={"description": "when the event that caused it was recorded"})
    status = fields.String(metadata={"enum": ["pending", "delivered", "failed"]})
    attempts = fields.Integer()
    last_status = fields.Integer(allow_none=True, metadata={"description": "the endpoint's last HTTP status"})
    last_error = fields.String(allow_none=True)
    delivered_at = fields.String(allow_none=True)
    payload = fields.Dict(metadata={"description": "the body that was (or will be) posted, as JSON"})


class WebhookDeliveryPageSchema(Schema):
    deliveries = fields.List(fields.Nested(WebhookDeliverySchema))
    next_after = fields.Integer()


class HealthSchema(Schema):
    status = fields.String(metadata={"enum": ["ok"]})


class ReadySchema(Schema):
    status = fields.String(metadata={"enum": ["ready"]})
    backend = fields.String(metadata={"enum": ["sqlite", "postgres"]})
    migrations = fields.List(fields.Integer(), metadata={"description": "applied migration numbers"})


class ProblemSchema(BaseProblemSchema):
    current_version = fields.Integer(metadata={"description": "409 version_conflict only"})
    game_id = fields.String(metadata={"description": "400 malformed_id only: the id sent (first 80 characters)"})


class CheckpointArgs(QuerySchema):
    tree_size = integer(minimum=0, metadata={"description": "a checkpoint the log signed at this size"})


class InclusionArgs(QuerySchema):
    leaf_hash = fields.String(required=True, validate=validate.Regexp(r"^[0-9a-f]{64}$"),
                              metadata={"description": "hex SHA-256(0x00 || head statement)"})
    tree_size = integer(minimum=1, metadata={"description": "default: the latest checkpoint's"})


class ConsistencyArgs(QuerySchema):
    first = integer(required=True, minimum=1)
    second = integer(minimum=1, metadata={"description": "default: the latest checkpoint's"})


class InclusionProofSchema(Schema):
    """docs/audit.md section 9."""

    leaf_index = fields.Integer()
    tree_size = fields.Integer()
    leaf_hash = fields.String(metadata={"description": "hex"})
    proof = fields.List(fields.String(), metadata={"description": "base64 node hashes, leaf side first"})


class ConsistencyProofSchema(Schema):
    first = fields.Integer()
    second = fields.Integer()
    proof = fields.List(fields.String(), metadata={"description": "base64 node hashes (RFC 9162 PROOF)"})


# -- post-game analysis --------------------------------------------------------------------------------------

ANALYSIS_DEPTHS = ("quick", "deep")
DEPTH_DOC = ("quick: the medium level's search for a better turn, the curve from the static evaluation (about a "
             "second of CPU per game); deep: the hard level's search and playouts (tens of times more); every answer's "
             "`cost` states what the installed engine spends at its depth; the default is quick")


class AnalysisRequestSchema(StrictSchema):
    depth = fields.String(load_default="quick", validate=validate.OneOf(ANALYSIS_DEPTHS),
                          metadata={"description": DEPTH_DOC})


class AnalysisArgs(QuerySchema):
    depth = fields.String(load_default="quick", validate=validate.OneOf(ANALYSIS_DEPTHS),
                          metadata={"description": DEPTH_DOC})


class AnalysisActionSchema(Schema):
    action = fields.Dict(metadata={"description": "the action in wire form (as POST /actions takes it)"})
    text = fields.String(metadata={"description": "the engine's short notation, e.g. `build D4 stack 0`"})


class BetterTurnSchema(Schema):
    actions = fields.List(fields.Nested(AnalysisActionSchema), metadata={
        "description": "the turn the search found from the seat's view at the time (and nothing it could not see)"})
    continues_after_draw = fields.Boolean(metadata={
        "description": "the suggestion ends by buying a card: what follows depends on the card drawn"})
    margin_played = fields.Float(metadata={"description": "the seat's margin over the best opponent after the "
                                           "others answered the played turn (points)"})
    margin_better = fields.Float(metadata={"description": "the same after the better turn"})
    share_after = fields.List(fields.Float(), metadata={"description": "each seat's expected final score share "
                                                        "after the better turn"})
    win_after = fields.List(fields.Float(), allow_none=True)
    score_after = fields.List(fields.Integer())
    boards = fields.List(fields.Dict(), metadata={
        "description": "after each of its actions, on the true position (the game is over): `position` (as GET "
                       "/state's) and `castles`, for a replay to play the better turn out on the board"})


class AnalysisTurnSchema(Schema):
    turn = fields.Integer()
    seat = fields.Integer()
    phase = fields.Integer()
    round = fields.Integer()
    from_version = fields.Integer(metadata={"description": "the version before the turn's first action"})
    to_version = fields.Integer(metadata={"description": "the version of the turn's last action"})
    actions = fields.List(fields.Nested(AnalysisActionSchema))
    share_before = fields.List(fields.Float(), metadata={"description": "each seat's expected final score share "
                                                         "before the turn"})
    share_after = fields.List(fields.Float())
    win_before = fields.List(fields.Float(), allow_none=True, metadata={"description": "each seat's win "
                                                                        "probability (deep only)"})
    win_after = fields.List(fields.Float(), allow_none=True)
    loss = fields.Float(metadata={"description": "what the turn lost against the better turn (points of margin)"})
    better = fields.Nested(BetterTurnSchema, allow_none=True, metadata={"description": "marked turns only"})


class AnalysisResultSchema(Schema):
    engine_version = fields.String()
    depth = fields.String()
    players = fields.Integer()
    final_scores = fields.List(fields.Integer())
    turns = fields.List(fields.Nested(AnalysisTurnSchema))
    marked = fields.List(fields.Integer(), metadata={"description": "the turns that lost the most, worst first"})
    scorings = fields.List(fields.Dict(), metadata={
        "description": "each phase scoring with its version: the engine's breakdown, as GET /state's `scoring`"})


class AnalysisSchema(Schema):
    game_id = fields.String()
    engine_version = fields.String()
    depth = fields.String(metadata={"enum": list(ANALYSIS_DEPTHS)})
    status = fields.String(metadata={"enum": ["pending", "ready"]})
    cost = fields.String(metadata={"description": "what the depth runs and costs"})
    requested_at = fields.String()
    completed_at = fields.String(allow_none=True)
    cpu_seconds = fields.Float(metadata={"description": "CPU spent on it so far"})
    turns_done = fields.Integer()
    result = fields.Nested(AnalysisResultSchema, allow_none=True)
