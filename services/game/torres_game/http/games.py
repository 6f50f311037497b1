"""/v1/games: create, read, act, wait. Each view parses, calls one service method, returns."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

from flask import Response, current_app, request

from torres_game.errors import ValidationFailed
from torres_game.push import SSE_OPENING, EventFeed, follow, notice_of, slow_client_limits, sse
from torres_game.service import GameService
from torres_service.fields import MAX_VERSION, version_text
from torres_service.limits import request_json
from torres_service.problems import LIMITS
from torres_service.problems import ProblemBlueprint as Blueprint
from torres_service.schemas import problem_responses, sse_event

from . import schemas as s
from .auth import credentials, stream_ticket

blp = Blueprint("games", __name__, url_prefix="/v1", description="Games: create, read, act, wait")

def service() -> GameService:
    return current_app.extensions["torres_game"]


def as_documented(body: dict[str, Any]) -> Response:
    """The JSON response of a hot endpoint whose body the service already builds in its documented form.

    flask-smorest passes a returned ``Response`` through, skipping the marshmallow dump of the declared
    schema, which for these bodies gives back the same dict at a measurable cost per request (the schemas
    still document them; ``tests/game/test_hot_path.py`` checks that dumping through them changes nothing).
    """
    return current_app.json.response(body)


#: Where the app keeps the compiled check of an action request (torres_service.schemas.DocumentedBody).
ACTION_BODY = "torres_game.action_body"


_errors = problem_responses(blp, s.ProblemSchema)

SSE_EVENT = sse_event("version", "game-over", "timeout", "shutdown")

@blp.route("/games", methods=["POST"])
@blp.arguments(s.CreateGameSchema())
@blp.arguments(s.CreationHeaders(), location="headers")
@blp.response(201, s.GameCreatedSchema)
@_errors(400, 401, 403, 409)
@blp.doc(security=[{"apiKey": []}])
def create_game(body: dict[str, Any], headers: dict[str, Any]) -> Any:
    """Create a game (a tenant's key with scope ``games``; it belongs to that tenant). Returns a secret token for
    each human seat. With an ``Idempotency-Key``, a retry of the same request answers the original 201
    (``Idempotent-Replayed: true``), never a second game; so does a creation with an ``external_id`` the tenant
    used before (its own id for the game: unique per tenant)."""
    key = headers.get("idempotency_key")
    if key is None and body.get("external_id") is None:
        return service().creation.create_game(credentials(), **body)
    result = service().creation.create_game_once(credentials(), key, **body)
    return result.body, 201, ({"Idempotent-Replayed": "true"} if result.replayed else {})


@blp.route("/games", methods=["GET"])
@blp.arguments(s.ListGamesArgs(), location="query")
@blp.response(200, s.GameListSchema)
@_errors(400, 401, 403)
@blp.doc(security=[{"apiKey": []}, {"adminKey": []}])
def list_games(args: dict[str, Any]) -> dict[str, Any]:
    """The caller's tenant's games (a tenant's key with ``games``; the admin key: every tenant's), newest first,
    every visibility; filtered by status, player, visibility and creation time; paged by ``next_cursor``."""
    return service().queries.list_games(credentials(), **args)


@blp.route("/games/<game_id>", methods=["GET"])
@blp.response(200, s.GameSummarySchema)
@_errors(401, 403, 404)
@blp.doc(security=[{}, {"seatToken": []}, {"apiKey": []}, {"adminKey": []}])
def get_game(game_id: str) -> dict[str, Any]:
    """A game's summary (never tokens), to whoever may watch it (a private game: 404 to anyone else)."""
    return service().queries.game_summary(game_id, credentials())


@blp.route("/games/<game_id>/view", methods=["GET"])
@blp.arguments(s.SeatArgs(), location="query")
@blp.response(200, s.ViewSchema)
@_errors(401, 403, 404)
@blp.doc(security=[{}, {"seatToken": []}, {"apiKey": []}, {"adminKey": []}])
def get_view(args: dict[str, Any], game_id: str) -> dict[str, Any]:
    """The seat's view (seat token), or the spectator view without credentials."""
    return service().queries.view(game_id, credentials(), seat=args.get("seat"))


@blp.route("/games/<game_id>/legal-actions", methods=["GET"])
@blp.arguments(s.SeatArgs(), location="query")
@blp.response(200, s.LegalActionsSchema)
@_errors(401, 403, 404)
@blp.doc(security=[{"seatToken": []}, {"apiKey": []}, {"adminKey": []}])
def get_legal_actions(args: dict[str, Any], game_id: str) -> Response:
    """The legal actions of the token's seat (empty when it is not that seat's turn)."""
    return as_documented(service().queries.legal_actions(game_id, credentials(), seat=args.get("seat")))


@blp.route("/games/<game_id>/events", methods=["GET"])
@blp.arguments(s.PageArgs(), location="query")
@blp.response(200, s.EventPageSchema)
@_errors(400, 401, 403, 404)
@blp.doc(security=[{}, {"seatToken": []}, {"apiKey": []}, {"adminKey": []}])
def list_events(args: dict[str, Any], game_id: str) -> dict[str, Any]:
    """Events after version ``after``, redacted for the reader (full after the end, with the admin key or with
    the tenant's key holding ``admin``)."""
    return service().queries.events(game_id, credentials(), after=args["after"], limit=args["limit"])


@blp.route("/games/<game_id>/state", methods=["GET"])
@blp.arguments(s.StateArgs(), location="query")
@blp.response(200, s.StateSchema)
@_errors(401, 403, 404)
@blp.doc(security=[{}, {"adminKey": []}, {"seatToken": []}, {"apiKey": []}])
def get_state(args: dict[str, Any], game_id: str) -> dict[str, Any]:
    """The position at version k (admin key or game over), or the seat's view at k (seat token), or the
    spectator's view at k (no credentials before the end): what a replay steps through."""
    return service().queries.position_at(game_id, credentials(), version=args.get("version"))


@blp.route("/games/<game_id>/record", methods=["GET"])
@blp.arguments(s.SeatArgs(), location="query")
@blp.response(200, s.GameRecordSchema)
@_errors(401, 403, 404)
@blp.doc(security=[{}, {"seatToken": []}, {"apiKey": []}, {"adminKey": []}])
def get_record(args: dict[str, Any], game_id: str) -> Response:
    """The signed game record (docs/audit.md) for ``python -m torres_audit verify``: complete once the game
    is over; before, what the reader may see (hidden payloads replaced by their content hashes)."""
    return as_documented(service().queries.record(game_id, credentials(), seat=args.get("seat")))


@blp.route("/games/<game_id>/verify", methods=["GET"])
@blp.response(200, s.VerifySchema)
@_errors(401, 403, 404)
@blp.doc(security=[{}, {"seatToken": []}, {"apiKey": []}, {"adminKey": []}])
def verify_game(game_id: str) -> dict[str, Any]:
    """Re-hash the chain and re-fold the log; report the first inconsistency."""
    return service().queries.verify(game_id, credentials())


@blp.route("/games/<game_id>/actions", methods=["POST"])
@blp.response(201, s.ActionResultSchema)
@_errors(400, 401, 403, 404, 409, 422)
@blp.doc(security=[{"seatToken": []}, {"apiKey": []}], requestBody=s.ACTION_REQUEST_BODY)
def submit_action(game_id: str) -> Any:
    """Submit an action at ``expected_version``; a repeated ``command_id`` replays the original 201."""
    body = current_app.extensions[ACTION_BODY].load(request_json(request, current_app.extensions[LIMITS]))
    result = service().commands.submit_action(game_id, credentials(), seat=body["seat"], action=body["action"],
                                     expected_version=body["expected_version"], command_id=body["command_id"])
    return as_documented(result.body), 201, ({"Idempotent-Replayed": "true"} if result.replayed else {})


@blp.route("/games/<game_id>/wait", methods=["GET"])
@blp.arguments(s.WaitArgs(), location="query")
@blp.response(200, s.WaitSchema)
@_errors(400, 401, 403, 404, 503)
@blp.doc(security=[{}, {"seatToken": []}, {"apiKey": []}, {"adminKey": []}])
def wait_for_change(args: dict[str, Any], game_id: str) -> dict[str, Any]:
    """Long-poll: returns as soon as the game's version exceeds ``version``, or at ``timeout``.

    Woken by the append's notice (PostgreSQL ``NOTIFY``, sent by the appending replica right after its commit,
    heard on every replica; in-process on SQLite); an idle wait costs no query of its own. 503
    ``too_many_streams`` when the process holds its maximum of open waits and streams."""
    return service().queries.wait(game_id, credentials(), version=args["version"], timeout=args["timeout"])


def _last_event_id() -> int | None:
    """The SSE ``Last-Event-ID`` header a reconnecting EventSource sends: the last version it received (a
    browser never sends it blank: the spec leaves the header out then)."""
    raw = request.headers.get("Last-Event-ID")
    if raw is None:
        return None
    version = version_text(raw)
    if version is None:
        raise ValidationFailed("Last-Event-ID must be a version number",
                               errors={"Last-Event-ID": [f"an integer from 0 to {MAX_VERSION}"]})
    return version


# Last-Event-ID is a parameter of the path, not of the operation's doc: a `parameters` list given to @blp.doc would
# replace the one flask-smorest derives from StreamArgs (version, stream_ticket, timeout) instead of adding to it.
@blp.route("/games/<game_id>/stream", methods=["GET"], parameters=[{
    "in": "header", "name": "Last-Event-ID", "required": False,
    "schema": {"type": "integer", "minimum": 0, "maximum": MAX_VERSION},
    "description": "resume after this version (EventSource sends it on reconnect); wins over `version`"}])
@blp.arguments(s.StreamArgs(), location="query")
@_errors(400, 401, 403, 404, 503)
@blp.doc(
    security=[{}, {"seatToken": []}, {"apiKey": []}, {"adminKey": []}, {"streamTicket": []}],
    responses={"200": {"description": (
        "`text/event-stream`: a `: connected` comment and `retry:` at once; then one `version` event per version "
        "after `version` / `Last-Event-ID` (`id:` = the version; data `{\"version\"}`, the latest one also "
        "`status` and `to_move`; opened with a seat's or a full reader's `stream_ticket`, also `events`: that "
        "version's events as `GET /events` gives them to the reader); `: keep-alive` comments while idle; and "
        "one closing event: `game-over` (the "
        "game ended), `timeout` (the `timeout` passed: reconnect to go on) or `shutdown` (the server is "
        "draining: reconnect)"),
        "content": {"text/event-stream": {"schema": SSE_EVENT}}}})
def stream_game(args: dict[str, Any], game_id: str) -> Response:
    """Server-sent events: every version once, in order, resumable with ``Last-Event-ID``. A browser passes a
    stream ticket (``?stream_ticket=``, single use: a reconnecting EventSource gets a new one) instead of the
    Authorization header its EventSource cannot send."""
    svc = service()
    last_id = _last_event_id()
    seen = args["version"] if last_id is None else last_id
    creds = credentials()
    ticket = stream_ticket(creds)
    sub = svc.hub.subscribe(game_id)  # 503 past the cap; before the read, so no notice slips in between
    try:
        summary, reader = svc.credentials.stream_opening(game_id, creds, ticket)  # 401/403/404 before the stream starts
    except BaseException:
        svc.hub.unsubscribe(sub)
        raise
    first = notice_of(summary)
    # With a ticket (the browser's way in), a seat's or full reader's versions carry their events, as on the
    # WebSocket; a stream opened with headers keeps its versions-only shape (its clients may use /ws for events).
    feed = None
    if ticket is not None and (reader.full or reader.seat is not None):
        feed = EventFeed(lambda after: svc.queries.events_for(game_id, reader, after=after, limit=500)["events"])
    deadline = time.monotonic() + args["timeout"]
    environ = request.environ

    def generate() -> Iterator[bytes]:
        with slow_client_limits(environ, svc.config.send_timeout, svc.config.stream_send_buffer):
            yield SSE_OPENING
            for step in follow(sub, lambda: notice_of(svc.queries.latest_summary(game_id)), first, seen,
                               deadline=deadline, heartbeat=svc.config.stream_heartbeat):
                yield sse(step, feed)

    response = Response(generate(), mimetype="text/event-stream",
                        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
    response.call_on_close(lambda: svc.hub.unsubscribe(sub))  # also when the client left before the first byte
    return response


@blp.route("/games/<game_id>/analysis", methods=["POST"])
@blp.arguments(s.AnalysisRequestSchema())
@blp.response(202, s.AnalysisSchema)
@blp.alt_response(200, schema=s.AnalysisSchema, description="the analysis is ready already")
@_errors(400, 401, 403, 404, 409, 503)
@blp.doc(security=[{}, {"seatToken": []}, {"apiKey": []}, {"adminKey": []}])
def request_analysis(body: dict[str, Any], game_id: str) -> Any:
    """Request the post-game analysis of a finished game, by anyone who may read it: 202 while it is computed (on
    the AI workers' bulk queue, behind every human's AI turn), 200 once ready. 409 ``game_running`` while the game
    is in play: an analysis would be a cheating aid. The tenant's portal gets the ``analysis.ready`` webhook."""
    result, _ = service().analyses.request(game_id, credentials(), depth=body["depth"])
    return result, 200 if result["status"] == "ready" else 202


@blp.route("/games/<game_id>/analysis", methods=["GET"])
@blp.arguments(s.AnalysisArgs(), location="query")
@blp.response(200, s.AnalysisSchema)
@_errors(400, 401, 403, 404, 409, 503)
@blp.doc(security=[{}, {"seatToken": []}, {"apiKey": []}, {"adminKey": []}])
def get_analysis(args: dict[str, Any], game_id: str) -> dict[str, Any]:
    """The analysis at ``depth``: ``pending`` (with the turns done so far) or ``ready`` with the result: per turn each
    seat's expected final score share before and after it, the turns that lost the most with a better turn found
    from the seat's view at the time, and the phase scorings explained. 404 ``analysis_not_found`` before a request."""
    return service().analyses.read(game_id, credentials(), depth=args["depth"])
