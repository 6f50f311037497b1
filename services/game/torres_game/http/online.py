"""/v1/games/<id>/resign, /abandon and /undo: leaving a game and taking back a move;
/spectator-tokens, how a portal lets someone watch one of its private games; /seats/<seat>/token, how it
reissues or revokes a seat's token; and /stream-tickets, how a browser authenticates a stream.

Kept apart from ``games.py`` (the everyday endpoints) so each stays small; each view parses, calls one
service method, returns. The clocks need no endpoint: they are in every view (``lifecycle.clock``) and
the service enforces them itself.
"""

from __future__ import annotations

from typing import Any

from flask import current_app
from marshmallow import Schema, fields

from torres_game.service import GameService
from torres_game.writes import Submitted
from torres_service.fields import COMMAND_ID, identifier, integer, text
from torres_service.problems import ProblemBlueprint as Blueprint
from torres_service.schemas import StrictSchema, problem_responses

from . import schemas as s
from .auth import credentials

blp = Blueprint("online", __name__, url_prefix="/v1",
                description="Online play: resign, abandon (portal), undo within a turn, spectator tokens (portal)")
_errors = problem_responses(blp, s.ProblemSchema)


class ResignRequestSchema(StrictSchema):
    seat = integer(required=True, strict=True, maximum=3)


class AbandonRequestSchema(StrictSchema):
    reason = text(required=True, description="why the portal ends the game (recorded in the log)")


class UndoRequestSchema(StrictSchema):
    seat = integer(required=True, strict=True, maximum=3)
    expected_version = integer(required=True, strict=True)
    command_id = identifier(COMMAND_ID, required=True, description="repeat it to retry safely")


class LifecycleResultSchema(Schema):
    game_id = fields.String()
    version = fields.Integer()
    status = fields.String(metadata={"description": "\"over\" once the game has ended (with a game_ended event)"})
    events = fields.List(fields.Nested(s.EventSchema))


def _service() -> GameService:
    return current_app.extensions["torres_game"]


def _answer(result: Submitted, status: int) -> Any:
    return result.body, status, ({"Idempotent-Replayed": "true"} if result.replayed else {})


@blp.route("/games/<game_id>/resign", methods=["POST"])
@blp.arguments(ResignRequestSchema())
@blp.response(201, LifecycleResultSchema)
@_errors(400, 401, 403, 404, 409)
@blp.doc(security=[{"seatToken": []}, {"apiKey": []}])  # a key with ``ai``: the game's AI seats
def resign(body: dict[str, Any], game_id: str) -> Any:
    """The seat leaves the game: it forfeits (its knights stay, it passes every turn, it ranks last); with
    fewer than two seats left the game ends. Allowed at any time, not only on the seat's turn; a repeat
    answers the original 201 (``Idempotent-Replayed: true``)."""
    return _answer(_service().commands.resign(game_id, credentials(), seat=body["seat"]), 201)


@blp.route("/games/<game_id>/abandon", methods=["POST"])
@blp.arguments(AbandonRequestSchema())
@blp.response(201, LifecycleResultSchema)
@_errors(400, 401, 403, 404, 409)
@blp.doc(security=[{"apiKey": []}])
def abandon_game(body: dict[str, Any], game_id: str) -> Any:
    """The portal ends the game (its key with ``games``; the matcher's internal key for any tenant's game) with a
    recorded reason; the ``game_ended`` result is unrated
    when no action was played yet. A repeat answers the original 201 (``Idempotent-Replayed: true``); a game
    that ended otherwise answers 409 ``game_over``."""
    return _answer(_service().commands.abandon(game_id, credentials(), reason=body["reason"]), 201)


@blp.route("/games/<game_id>/undo", methods=["POST"])
@blp.arguments(UndoRequestSchema())
@blp.response(201, s.ActionResultSchema)
@_errors(400, 401, 403, 404, 409)
@blp.doc(security=[{"seatToken": []}, {"apiKey": []}])  # a key with ``ai``: the game's AI seats
def undo(body: dict[str, Any], game_id: str) -> Any:
    """Take back the seat's last action of its current turn, at ``expected_version``: the state becomes the
    one before that action. 409 ``undo_unavailable`` when nothing can be taken back (no action yet this
    turn, or a card was drawn or shown since), ``undo_disabled`` when the game was created without undo."""
    return _answer(_service().commands.undo(game_id, credentials(), **body), 201)


@blp.route("/games/<game_id>/spectator-tokens", methods=["POST"])
@blp.arguments(s.SpectatorTokenRequestSchema(), required=False)
@blp.response(201, s.SpectatorTokenSchema)
@_errors(400, 401, 403, 404)
@blp.doc(security=[{"apiKey": []}, {"adminKey": []}])
def create_spectator_token(body: dict[str, Any], game_id: str) -> Any:
    """A token that reads this game as a spectator until ``expires_at`` (the game's tenant's key with ``games``,
    or the admin key): the way into a private game without a seat. Stateless: it cannot be revoked before it
    expires, so keep ``ttl_seconds`` short."""
    return _service().credentials.spectator_token(game_id, credentials(), ttl=body["ttl_seconds"]), 201


@blp.route("/games/<game_id>/seats/<int:seat>/token", methods=["POST"])
@blp.response(201, s.SeatTokenSchema)
@_errors(401, 403, 404, 409)
@blp.doc(security=[{"apiKey": []}, {"adminKey": []}])
def reissue_seat_token(game_id: str, seat: int) -> Any:
    """A new token for a human seat (the game's tenant's key with ``games``, or the admin key), for a player who
    lost theirs: shown this once; every earlier token of the seat answers 401 ``seat_token_revoked`` from now on,
    in every process. 409 ``seat_has_no_token`` for an AI seat."""
    return _service().credentials.reissue_seat_token(game_id, credentials(), seat=seat), 201


@blp.route("/games/<game_id>/seats/<int:seat>/token", methods=["DELETE"])
@blp.response(200, s.SeatTokenRevokedSchema)
@_errors(401, 403, 404, 409)
@blp.doc(security=[{"apiKey": []}, {"adminKey": []}])
def revoke_seat_token(game_id: str, seat: int) -> Any:
    """Revoke the seat's token (same credentials as a reissue): the seat has no valid token until one is
    reissued; its token answers 401 ``seat_token_revoked``. The seat stays in the game."""
    return _service().credentials.revoke_seat_token(game_id, credentials(), seat=seat)


@blp.route("/games/<game_id>/stream-tickets", methods=["POST"])
@blp.response(201, s.StreamTicketSchema)
@_errors(401, 403, 404)
@blp.doc(security=[{"seatToken": []}, {"apiKey": []}, {"adminKey": []}])
def create_stream_ticket(game_id: str) -> Any:
    """A short-lived, single-use ticket for ``/stream?stream_ticket=`` or ``/ws?stream_ticket=`` that stands
    for the caller (seat token, spectator token, the tenant's key, the admin key) as a reader of this game:
    browsers cannot send headers on EventSource or WebSocket, and a seat token must never be put in a URL."""
    return _service().credentials.stream_ticket(game_id, credentials()), 201
