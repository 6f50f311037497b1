"""/v1/tickets, /v1/queues, /v1/leaderboard and /v1/players: each view parses, calls one method, returns."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

from flask import Response, current_app, stream_with_context

from torres_matchmaking.ratings import RatingBook
from torres_matchmaking.tickets import TicketService, check_player_id
from torres_service.problems import ProblemBlueprint as Blueprint
from torres_service.schemas import problem_responses, sse_event

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


@blp.route("/tickets/<ticket_id>/wait", methods=["GET"])
@blp.arguments(s.TicketWaitArgs, location="query")
@blp.response(200, s.TicketSchema)
@_errors(400, 404)
def wait_ticket(args: dict[str, Any], ticket_id: str) -> dict[str, Any]:
    """Long-poll: the ticket as soon as its status differs from ``status``, or at ``timeout``."""
    return tickets().wait(ticket_id, args.get("status"), args["timeout"])


SSE_OPENING = ": connected\nretry: 2000\n\n"
HEARTBEAT = 15.0


@blp.route("/tickets/<ticket_id>/stream", methods=["GET"])
@blp.arguments(s.TicketStreamArgs, location="query")
@_errors(400, 404)
@blp.doc(responses={"200": {"description": (
    "`text/event-stream`: a `: connected` comment and `retry:` at once; a `ticket` event with the ticket now "
    "and one at each status change; `: keep-alive` comments while idle; and one closing event: `finished` "
    "(the ticket is matched, cancelled or expired) or `timeout` (reconnect to go on)"),
    "content": {"text/event-stream": {"schema": sse_event("ticket", "finished", "timeout")}}}})
def stream_ticket(args: dict[str, Any], ticket_id: str) -> Response:
    """Server-sent events for one ticket, in the game service's stream format. One subscription for the whole
    stream: Redis is read once now and once per change of this ticket, never while it idles."""
    svc = tickets()
    sub = svc.hub.subscribe(ticket_id)  # 503 past the cap; before the read, so no change slips in between
    try:
        first = svc.get(ticket_id)  # 400/404 before the stream starts
    except BaseException:
        svc.hub.unsubscribe(sub)
        raise
    deadline = time.monotonic() + args["timeout"]

    def generate() -> Iterator[str]:
        yield SSE_OPENING
        doc, shown = first, None
        while True:
            if doc["status"] != shown:
                shown = doc["status"]
                yield f"event: ticket\ndata: {json.dumps(doc)}\n\n"
            if shown in svc.FINISHED:
                yield "event: finished\ndata: {}\n\n"
                return
            left = deadline - time.monotonic()
            if left <= 0 or sub.closing:
                yield "event: timeout\ndata: {}\n\n"
                return
            doc = svc.next_change(sub, doc, shown, time.monotonic() + min(HEARTBEAT, left))
            if doc["status"] == shown and deadline - time.monotonic() > 0 and not sub.closing:
                yield ": keep-alive\n\n"

    response = Response(stream_with_context(generate()), mimetype="text/event-stream",
                        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
    response.call_on_close(lambda: svc.hub.unsubscribe(sub))  # also when the client left before the first byte
    return response


@blp.route("/tickets/<ticket_id>", methods=["DELETE"])
@blp.response(200, s.TicketSchema)
@_errors(400, 404, 409)
def cancel_ticket(ticket_id: str) -> dict[str, Any]:
    """Cancel a queued ticket. 409 if it is already matched or expired, or being placed in a game (unless
    that placement has been stuck for longer than the claim timeout: then the cancel goes through)."""
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
