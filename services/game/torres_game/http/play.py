"""/play/: the reference web client (``clients/web``), static files plus the one thing that is per deployment.

The client is plain ES modules with no build step, so any static host serves it in production; the game
service serves it too so that `make run` needs nothing else. ``config.json`` tells the page where the
matchmaker is (another origin under `make run`: the matchmaker allows this origin through CORS).
"""

from __future__ import annotations

from flask import Blueprint, Response, current_app, redirect, send_from_directory

from torres_game.service import GameService

play = Blueprint("play", __name__, url_prefix="/play")


def _service() -> GameService:
    return current_app.extensions["torres_game"]


@play.route("", strict_slashes=False)
def index_redirect() -> Response:
    return redirect("/play/", code=308)  # type: ignore[return-value]


@play.route("/")
def index() -> Response:
    return _static("index.html")


@play.route("/config.json")
def config() -> Response:
    """What a static deployment writes by hand: the matchmaker's address (empty: the lobby hides matchmaking)."""
    body = {"api_base": "", "matchmaking_url": _service().config.matchmaking_url}
    return framing(current_app.json.response(body), _service().config.frame_ancestors)


@play.route("/<path:name>")
def static_file(name: str) -> Response:
    return _static(name)


def _static(name: str) -> Response:
    response = send_from_directory(_service().config.web_dir, name, max_age=0)
    response.headers["X-Content-Type-Options"] = "nosniff"
    return framing(response, _service().config.frame_ancestors)


def framing(response: Response, portals: tuple[str, ...]) -> Response:
    """Who may show the page in a frame (the embeddable client): this origin and the portals of
    ``TORRES_FRAME_ANCESTORS``, nobody else (a page that frames the game to trick a player into clicks is
    refused by the browser). X-Frame-Options can name no other origin, so it is sent only with no portal listed;
    a browser that knows CSP ignores it anyway."""
    response.headers["Content-Security-Policy"] = " ".join(("frame-ancestors 'self'", *portals))
    if not portals:
        response.headers["X-Frame-Options"] = "SAMEORIGIN"
    return response
