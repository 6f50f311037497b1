"""/v1/games/<id>/ws: the WebSocket way to follow a game (flask-sock / simple-websocket).

Everything that can fail (unknown game, wrong token, the per-process cap) is checked in ``before_request``, so it
is answered as an ordinary problem response *before* the upgrade; the socket then only carries the steps of
:func:`torres_game.push.follow`, as JSON text messages:

* ``{"type": "version", "version": v, ...}`` for every version after ``version``, once and in order; the latest
  also has ``status`` and ``to_move``; with a seat token (or the admin key, or a stream ticket one of them got,
  ``?stream_ticket=``: browsers cannot send headers) ``events`` holds that version's events redacted for the
  reader, exactly as ``GET /events`` would give them;
* ``{"type": "game-over", ...}`` and then a normal close (1000) when the game has ended;
* ``{"type": "shutdown", ...}`` and close 1001 when the server drains.

Idle sockets are kept open by WebSocket pings (``SOCK_SERVER_OPTIONS['ping_interval']``); a client that stops
answering them, or cannot take a message within ``TORRES_SEND_TIMEOUT``, is dropped.
"""

from __future__ import annotations

import math
import re
from typing import Any

import orjson
from flask import Flask, g, request
from flask_sock import Sock

from torres_game.errors import ValidationFailed
from torres_game.push import EventFeed, follow, notice_of, slow_client_limits
from torres_service.fields import MAX_VERSION, version_text
from torres_service.problems import ProblemBlueprint as Blueprint

from .auth import credentials, stream_ticket
from .games import service

push = Blueprint("push", __name__, url_prefix="/v1", description="WebSocket: a game's versions as they happen")
sock = Sock()


def init_push(app: Flask, ping_interval: float) -> None:
    app.config.setdefault("SOCK_SERVER_OPTIONS", {"ping_interval": ping_interval, "max_message_size": 4096})
    sock.init_app(app)


@push.before_request
def _open() -> None:
    """Refuse before the upgrade: 400 bad version, 401 unknown key, 403 wrong token, 404 no game (or one the
    caller may not watch), 503 too many streams."""
    if request.endpoint != "push.game_socket":
        return
    # werkzeug's router has already refused a request without Upgrade: websocket and Connection: Upgrade (400);
    # the other two handshake headers are checked here, so a bad one is a 400, not an error in the handshake.
    bad = {header["name"]: [f"must match {header['schema'].get('enum') or header['schema']['pattern']}"]
           for header, accepts in zip(UPGRADE_HEADERS[2:], (_VERSION_13, _KEY_16_BYTES), strict=True)
           if not accepts(request.headers.get(header["name"], ""))}
    if bad:
        raise ValidationFailed("not a WebSocket opening handshake (RFC 6455 section 4.1)", errors=bad)
    seen = version_text(request.args.get("version", "0"))
    if seen is None:
        raise ValidationFailed("version must be a version number",
                               errors={"version": [f"an integer from 0 to {MAX_VERSION}"]})
    svc = service()
    game_id = request.view_args["game_id"] if request.view_args else ""
    creds = credentials()
    ticket = stream_ticket(creds)
    sub = svc.hub.subscribe(game_id)
    try:
        summary, reader = svc.credentials.stream_opening(game_id, creds, ticket)
    except BaseException:
        svc.hub.unsubscribe(sub)
        raise
    feed = None
    if reader.full or reader.seat is not None:
        feed = EventFeed(lambda after: svc.queries.events_for(game_id, reader, after=after, limit=500)["events"])
    g.push = (sub, notice_of(summary), seen, feed)


@push.teardown_request
def _close(_error: BaseException | None) -> None:
    """Free the slot even if the upgrade itself failed (unsubscribing is idempotent)."""
    opened = g.pop("push", None)
    if opened is not None:
        service().hub.unsubscribe(opened[0])


#: The opening handshake's request headers (RFC 6455 section 4.1), which every WebSocket client sends: a plain GET
#: is no upgrade and is answered 400.
UPGRADE_HEADERS: list[dict[str, Any]] = [
    {"in": "header", "name": "Upgrade", "required": True, "schema": {"type": "string", "enum": ["websocket"]}},
    {"in": "header", "name": "Connection", "required": True, "schema": {"type": "string", "enum": ["Upgrade"]}},
    {"in": "header", "name": "Sec-WebSocket-Version", "required": True,
     "schema": {"type": "string", "enum": ["13"]}},
    {"in": "header", "name": "Sec-WebSocket-Key", "required": True,
     "schema": {"type": "string", "pattern": "^[A-Za-z0-9+/]{21}[AQgw]==$"},
     "description": "16 random bytes, base64"},
]
_VERSION_13 = "13".__eq__
_KEY_16_BYTES = re.compile(UPGRADE_HEADERS[3]["schema"]["pattern"]).fullmatch


@push.doc(
    summary="WebSocket: every version of the game once, in order; a seat's redacted events with its token",
    parameters=[{"in": "query", "name": "version", "schema": {"type": "integer", "minimum": 0, "maximum": MAX_VERSION,
                                                                      "default": 0},
                 "description": "the last version the client has; messages start after it"},
                {"in": "query", "name": "stream_ticket", "schema": {"type": "string"},
                 "description": "a single-use ticket from POST .../stream-tickets, for browsers (no headers)"},
                *UPGRADE_HEADERS],
    responses={
        "101": {"description": "Switching Protocols: JSON text messages `version`, then `game-over` (close 1000) "
                               "or `shutdown` (close 1001); see docs/game-service.md"},
        "400": {"description": "bad `version`"},
        "401": {"description": "an API key nobody holds; a stream ticket unknown, used, expired or another game's; "
                               "a revoked or expired seat token"},
        "403": {"description": "a token of no seat of this game"},
        "404": {"description": "no such game, or one the caller may not watch (another tenant's, a private one)"},
        "503": {"description": "too many open streams in this process"},
    },
    security=[{}, {"seatToken": []}, {"apiKey": []}, {"adminKey": []}, {"streamTicket": []}],
)
def game_socket(ws: Any, game_id: str) -> None:
    """Send the game's steps until it ends, the server drains or the client leaves."""
    svc = service()
    sub, first, seen, feed = g.push
    try:
        with slow_client_limits(request.environ, svc.config.send_timeout, svc.config.stream_send_buffer):
            read = lambda: notice_of(svc.queries.latest_summary(game_id))  # noqa: E731
            for step in follow(sub, read, first, seen, deadline=math.inf, heartbeat=svc.config.stream_heartbeat):
                if not ws.connected:
                    return
                if step.kind == "heartbeat":
                    continue  # simple-websocket pings on its own schedule
                message: dict[str, Any] = {"type": step.kind, **step.body()}
                if step.kind == "version" and feed is not None:
                    message["events"] = feed.of(step)
                ws.send(orjson.dumps(message).decode())
                if step.kind in ("game-over", "shutdown"):
                    ws.close(reason=1000 if step.kind == "game-over" else 1001, message=step.kind)
                    return
    except OSError:
        return  # the client is gone or too slow to take a message (send timeout): drop it
    finally:
        svc.hub.unsubscribe(sub)


sock.route("/games/<game_id>/ws", bp=push, endpoint="game_socket")(game_socket)
