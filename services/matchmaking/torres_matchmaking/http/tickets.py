"""/v1/tickets, /v1/queues, /v1/leaderboard and /v1/players: each view authenticates, parses, calls one method,
returns.

Who may do what (:mod:`.auth`): a ticket is its player's — created, read, waited on, streamed and
cancelled with that player's token only, anybody else's (another player, another tenant's) getting 404 as for
an id that does not exist. The stream also opens with a single-use stream ticket, for EventSource. Queue sizes
and the leaderboard are the caller's tenant's, with a player token or the portal's key; a rating is readable by
its own player, or by the portal's key for any of its players.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

from flask import Response, current_app, stream_with_context

from torres_matchmaking.ratings import RatingBook
from torres_matchmaking.tickets import Owner, TicketService, check_player_id
from torres_service.problems import ProblemBlueprint as Blueprint
from torres_service.schemas import problem_responses, sse_event

from ..errors import Forbidden, MissingPlayerToken, ValidationFailed
from . import schemas as s
from .auth import (
    PLAYER,
    PLAYER_OR_PORTAL,
    caller_tenant,
    key_beside,
    player,
    player_required,
    same_tenant,
    tenant_of,
)

blp = Blueprint("tickets", __name__, url_prefix="/v1", description="Tickets, queues and ratings")


def tickets() -> TicketService:
    return current_app.extensions["torres_matchmaking"].tickets


def ratings() -> RatingBook:
    return current_app.extensions["torres_matchmaking"].ratings


_errors = problem_responses(blp, s.ProblemSchema)


class MissingStreamCredentials(MissingPlayerToken):
    """A stream opened with neither a player token nor a stream ticket."""

    def __init__(self) -> None:
        super().__init__("send Authorization: Bearer <player token>, or ?stream_ticket= from "
                         "POST /v1/tickets/{ticket_id}/stream-tickets")


@blp.route("/tickets", methods=["POST"])
@player_required
@blp.arguments(s.CreateTicketSchema)
@blp.response(201, s.TicketSchema)
@_errors(400, 401, 409)
@blp.doc(security=PLAYER)
def create_ticket(body: dict[str, Any], owner: Owner) -> dict[str, Any]:
    """Queue the token's player for a game (the body does not name the player: a ``player_id`` in it is 400).
    One live (queued) ticket per player of a tenant: a second one is a 409. The ticket meets only players of the
    same tenant, or of every shared-pool tenant if its tenant is one."""
    body.setdefault("max_wait_seconds", tickets().config.default_max_wait)
    return tickets().create(**body, player_id=owner.player_id, tenant=owner.tenant,
                            shared_pool=tenant_of(owner.tenant).shared_pool, display_name=owner.name)


@blp.route("/tickets/<ticket_id>", methods=["GET"])
@player_required
@blp.response(200, s.TicketSchema)
@_errors(400, 401, 404)
@blp.doc(security=PLAYER)
def get_ticket(ticket_id: str, owner: Owner) -> dict[str, Any]:
    """The player's ticket: queued / matched (game id, seat, seat token) / cancelled / expired. Another player's
    ticket is 404, as an unknown one."""
    return tickets().get(ticket_id, owner)


@blp.route("/tickets/<ticket_id>/wait", methods=["GET"])
@player_required
@blp.arguments(s.TicketWaitArgs, location="query")
@blp.response(200, s.TicketSchema)
@_errors(400, 401, 404)
@blp.doc(security=PLAYER)
def wait_ticket(args: dict[str, Any], ticket_id: str, owner: Owner) -> dict[str, Any]:
    """Long-poll: the player's ticket as soon as its status differs from ``status``, or at ``timeout``."""
    return tickets().wait(ticket_id, args.get("status"), args["timeout"], owner)


@blp.route("/tickets/<ticket_id>/stream-tickets", methods=["POST"])
@player_required
@blp.response(201, s.StreamTicketSchema)
@_errors(400, 401, 404)
@blp.doc(security=PLAYER)
def create_stream_ticket(ticket_id: str, owner: Owner) -> dict[str, Any]:
    """A single-use ticket that opens this ticket's stream once, within a minute (``MM_STREAM_TICKET_TTL``):
    a browser's EventSource cannot send the player token, and the token itself never goes into a URL."""
    secret, ttl = tickets().issue_stream_ticket(ticket_id, owner)
    return {"stream_ticket": secret, "expires_in": ttl,
            "stream_url": f"/v1/tickets/{ticket_id}/stream?stream_ticket={secret}"}


SSE_OPENING = ": connected\nretry: 2000\n\n"
HEARTBEAT = 15.0


def stream_owner(ticket_id: str, secret: str | None) -> Owner:
    """Whose stream this is: the player token's, or the stream ticket's (consumed now), not both at once. A key
    sent beside either must verify and be of the stream's tenant (:func:`.auth.key_beside`); it is checked
    before the ticket is taken, so a request refused for it leaves the ticket usable."""
    owner = player()
    if secret is None:
        if owner is None:
            raise MissingStreamCredentials()
        key_beside(owner.tenant)
        return owner
    if owner is not None:
        raise ValidationFailed("send the player token or a stream ticket, not both",
                               errors={"stream_ticket": ["not with an Authorization header"]})
    principal = key_beside(None)
    owner = tickets().redeem_stream_ticket(secret, ticket_id)
    same_tenant(principal, owner.tenant)
    return owner


@blp.route("/tickets/<ticket_id>/stream", methods=["GET"])
@blp.arguments(s.TicketStreamArgs, location="query")
@_errors(400, 401, 404)
@blp.doc(security=[{"streamTicket": []}, {"playerToken": []}], responses={"200": {"description": (
    "`text/event-stream`: a `: connected` comment and `retry:` at once; a `ticket` event with the ticket now "
    "and one at each status change; `: keep-alive` comments while idle; and one closing event: `finished` "
    "(the ticket is matched, cancelled or expired) or `timeout` (reconnect to go on)"),
    "content": {"text/event-stream": {"schema": sse_event("ticket", "finished", "timeout")}}}})
def stream_ticket_status(args: dict[str, Any], ticket_id: str) -> Response:
    """Server-sent events for the player's ticket, in the game service's stream format; opened with the player
    token, or with a stream ticket in the query (EventSource). One subscription for the whole stream: Redis is
    read once now and once per change of this ticket, never while it idles."""
    owner = stream_owner(ticket_id, args.get("stream_ticket"))
    svc = tickets()
    sub = svc.hub.subscribe(ticket_id)  # 503 past the cap; before the read, so no change slips in between
    try:
        first = svc.get(ticket_id, owner)  # 400/404 before the stream starts
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
@player_required
@blp.response(200, s.TicketSchema)
@_errors(400, 401, 404, 409)
@blp.doc(security=PLAYER)
def cancel_ticket(ticket_id: str, owner: Owner) -> dict[str, Any]:
    """Cancel the player's queued ticket (another's: 404, untouched). 409 if it is already matched or expired,
    or being placed in a game (unless that placement has been stuck for longer than the claim timeout: then the
    cancel goes through)."""
    return tickets().cancel(ticket_id, owner)


@blp.route("/queues", methods=["GET"])
@blp.response(200, s.QueuesSchema)
@_errors(401, 403)
@blp.doc(security=PLAYER_OR_PORTAL)
def list_queues() -> dict[str, Any]:
    """The caller's tenant's non-empty queue sizes by edition:variant:player-count (a ticket sits in one queue
    per count): its own pool's, or the shared pool's if the tenant is in it."""
    tenant, _, _ = caller_tenant()
    return {"queues": tickets().queue_sizes(tenant, tenant_of(tenant).shared_pool)}


@blp.route("/leaderboard", methods=["GET"])
@blp.arguments(s.PageArgs, location="query")
@blp.response(200, s.LeaderboardSchema)
@_errors(400, 401, 403)
@blp.doc(security=PLAYER_OR_PORTAL)
def get_leaderboard(args: dict[str, Any]) -> dict[str, Any]:
    """The caller's tenant's rated players by ordinal (mu − 3σ), best first; each tenant has its own board."""
    tenant, _, _ = caller_tenant()
    return ratings().leaderboard(tenant, limit=args["limit"], offset=args["offset"])


@blp.route("/players/<player_id>/rating", methods=["GET"])
@blp.response(200, s.RatingSchema)
@_errors(400, 401, 403)
@blp.doc(security=PLAYER_OR_PORTAL)
def get_player_rating(player_id: str) -> dict[str, Any]:
    """A player's rating within the caller's tenant (the default rating, with ``games: 0``, for a player never
    rated): a player token reads its own player's, the portal's key any of its players'."""
    check_player_id(player_id)
    tenant, owner, principal = caller_tenant()
    if principal is None and owner is not None and owner.player_id != player_id:
        raise Forbidden("a player token reads its own player's rating only (the portal's key reads any)")
    return ratings().get(tenant, player_id).to_json()
