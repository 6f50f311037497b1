"""/v1/tickets, /v1/queues, /v1/leaderboard and /v1/players: each view parses, calls one method, returns."""

from __future__ import annotations

from typing import Any

from flask import current_app

from torres_matchmaking.ratings import RatingBook
from torres_matchmaking.tickets import TicketService, check_player_id
from torres_service.problems import ProblemBlueprint as Blueprint
from torres_service.schemas import problem_responses

from . import schemas as s

blp = Blueprint("tickets", __name__, url_prefix="/v1", description="Tickets, queues and ratings")


def tickets() -> TicketService:
    return current_app.extensions["torres_matchmaking"].tickets


def ratings() -> RatingBook:
    return current_app.extensions["torres_matchmaking"].ratings


_errors = problem_responses(blp, s.ProblemSchema)


@blp.route("/tickets", methods=["POST"])
@blp.arguments(s.CreateTicketSchema)
@blp.response(201, s.TicketSchema)
@_errors(400, 409)
def create_ticket(body: dict[str, Any]) -> dict[str, Any]:
    """Queue a player for a game. One live (queued) ticket per player: a second one is a 409."""
    body.setdefault("max_wait_seconds", tickets().config.default_max_wait)
    return tickets().create(**body)


@blp.route("/tickets/<ticket_id>", methods=["GET"])
@blp.response(200, s.TicketSchema)
@_errors(400, 404)
def get_ticket(ticket_id: str) -> dict[str, Any]:
    """The ticket: queued / matched (game id, seat, seat token) / cancelled / expired."""
    return tickets().get(ticket_id)


@blp.route("/tickets/<ticket_id>", methods=["DELETE"])
@blp.response(200, s.TicketSchema)
@_errors(400, 404, 409)
def cancel_ticket(ticket_id: str) -> dict[str, Any]:
    """Cancel a queued ticket. 409 if it is already matched, expired or being placed in a game."""
    return tickets().cancel(ticket_id)


@blp.route("/queues", methods=["GET"])
@blp.response(200, s.QueuesSchema)
def queues() -> dict[str, Any]:
    """Non-empty queue sizes by edition:variant:player-count (a ticket sits in one queue per count)."""
    return {"queues": tickets().queue_sizes()}


@blp.route("/leaderboard", methods=["GET"])
@blp.arguments(s.PageArgs, location="query")
@blp.response(200, s.LeaderboardSchema)
def leaderboard(args: dict[str, Any]) -> dict[str, Any]:
    """Rated players by ordinal (mu − 3σ), best first."""
    return ratings().leaderboard(limit=args["limit"], offset=args["offset"])


@blp.route("/players/<player_id>/rating", methods=["GET"])
@blp.response(200, s.RatingSchema)
@_errors(400)
def player_rating(player_id: str) -> dict[str, Any]:
    """A player's rating (the default rating, with ``games: 0``, for a player never rated)."""
    return ratings().get(check_player_id(player_id)).to_json()
