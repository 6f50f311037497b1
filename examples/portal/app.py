"""A worked example portal: its own users log in; it signs their player tokens, queues them at the
matchmaker (rated games) or creates a game itself (an unrated challenge), embeds the web client, receives and
verifies the game service's webhooks ("your turn" notices, results, "your analysis is ready" with a link to the
replay showing it) and shows the tenant's leaderboard.

It talks to the services only through the generated SDKs (torres_game_client, torres_matchmaking_client). What it
keeps (seat tokens, notices) lives in memory: a real portal keeps it in its database. docs/integration.md walks
through it; every setting comes from the environment (SETTINGS), none is in this repository.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import os
import secrets
import threading
import time
from collections import defaultdict, deque
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote, urlsplit

import jwt
from flask import Flask, abort, jsonify, redirect, render_template, request, session, url_for
from werkzeug.security import check_password_hash

from torres_game_client import AuthenticatedClient as GameClient
from torres_game_client.api.games import create_game, list_games, request_analysis
from torres_game_client.models import (
    AnalysisRequest,
    CreateGame,
    GameCreated,
    GameList,
    HumanSeatSpec,
    HumanSeatSpecKind,
)
from torres_matchmaking_client import AuthenticatedClient as MatchmakerClient
from torres_matchmaking_client.api.tickets import (
    create_ticket,
    get_leaderboard,
    get_player_rating,
    get_ticket,
)
from torres_matchmaking_client.models import CreateTicket, CreateTicketPlayerCountsItem, Ticket, TicketStatus

SETTINGS = {
    "PORTAL_GAME_URL": "the game service, as the players' browsers reach it (its /play/ is embedded)",
    "PORTAL_MATCHMAKING_URL": "the matchmaker",
    "PORTAL_API_KEY": "the tenant's key (scopes games and matchmaking: `keys add-key NAME --scopes ...`)",
    "PORTAL_PLAYER_ISSUER": "the iss of its player tokens: the tenant's name unless `add-tenant --issuer`",
    "PORTAL_PLAYER_SECRET": "the tenant's hs256_secret, printed once by `keys add-tenant`",
    "PORTAL_WEBHOOK_SECRET": "the secret `keys set-webhook` printed (or was given)",
    "PORTAL_ORIGIN": "this portal's own origin, e.g. https://portal.example (listed in TORRES_FRAME_ANCESTORS)",
    "PORTAL_SECRET_KEY": "signs the session cookie",
    "PORTAL_USERS": 'the users: JSON {"ada": "<werkzeug password hash>", ...}',
}


def verify(secret: str, headers: Mapping[str, str], body: bytes, tolerance: float = 300) -> bool:
    """The webhook signature check of docs/integration.md, "Verifying the signature" (no service package needed)."""
    timestamp, signature = headers.get("X-Torres-Timestamp", ""), headers.get("X-Torres-Signature", "")
    if not timestamp.isdigit() or abs(time.time() - int(timestamp)) > tolerance:
        return False
    expected = "sha256=" + hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(signature, expected)


def player_token(config: Mapping[str, str], user: str, lifetime: int = 300) -> str:
    """The user's player token for the matchmaker (docs/security.md, "Issuing player tokens from a portal")."""
    now = int(time.time())
    claims = {"iss": config["PORTAL_PLAYER_ISSUER"], "aud": "torres", "sub": user, "name": user.title(), "iat": now,
              "exp": now + lifetime}  # name: the user's seats show it in every rated game
    return jwt.encode(claims, config["PORTAL_PLAYER_SECRET"], algorithm="HS256")


class Portal:
    """What the portal remembers: each user's seat tokens, queued tickets, the webhooks it processed, notices."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.seat_tokens: dict[tuple[str, str], str] = {}  # (user, game id) -> that user's seat token
        self.seats: dict[str, dict[int, str]] = defaultdict(dict)  # game id -> seat -> user
        self.tickets: dict[str, str] = {}  # user -> their queued ticket
        self.deliveries: set[str] = set()  # webhook delivery ids already processed
        self.notices: defaultdict[str, deque[str]] = defaultdict(lambda: deque(maxlen=6))  # user -> "your turn"
        self.results: defaultdict[str, list[Any]] = defaultdict(list)  # user -> game ends' lines, analyses' links

    def join(self, user: str, game_id: str, seat: int, token: str) -> None:
        with self.lock:
            self.seat_tokens[(user, game_id)], self.seats[game_id][seat] = token, user

    def record(self, hook: dict[str, Any], users: Mapping[str, str]) -> bool:
        """Process one webhook once (False: its delivery id was seen before)."""
        data, game_id = hook["data"], hook["game_id"]
        with self.lock:
            if hook["id"] in self.deliveries:
                return False
            self.deliveries.add(hook["id"])
            seats = self.seats[game_id]
            if hook["type"] == "game.created":
                seats.update({s["seat"]: s["player_id"] for s in data["seats"] if s.get("player_id") in users})
            elif hook["type"] == "turn.started" and data.get("player_id") in users:
                self.notices[data["player_id"]].append(
                    f"Your turn in game {game_id[:8]} (phase {data['phase']}, round {data['round']}) at "
                    f"{hook['created_at'][11:19]} UTC")
            elif hook["type"] == "game.ended":
                scores = " – ".join(map(str, data["scores"]))
                for seat, user in seats.items():
                    place = "won" if seat in data["winners"] else f"finished {data['ranks'][seat] + 1}."
                    self.results[user].append(f"Game {game_id[:8]} ended ({data['reason']}): you {place}, "
                                              f"scores {scores}")
            elif hook["type"] == "analysis.ready":
                for user in seats.values():
                    self.results[user].append({"text": f"Your analysis of game {game_id[:8]} is ready",
                                               "href": f"/analysis/{game_id}?depth={data['depth']}"})
        return True


def create_app(config: Mapping[str, str]) -> Flask:
    app = Flask(__name__, root_path=os.path.dirname(os.path.abspath(__file__)))
    app.secret_key = config["PORTAL_SECRET_KEY"]
    app.logger.setLevel(logging.INFO)
    users: dict[str, str] = json.loads(config["PORTAL_USERS"])
    portal = Portal()
    app.extensions["portal"] = portal
    game_url, parts = config["PORTAL_GAME_URL"].rstrip("/"), urlsplit(config["PORTAL_GAME_URL"])
    game_origin = f"{parts.scheme}://{parts.netloc}"
    games = GameClient(base_url=game_url, token=config["PORTAL_API_KEY"], prefix="", auth_header_name="X-API-Key")
    board = MatchmakerClient(base_url=config["PORTAL_MATCHMAKING_URL"], token=config["PORTAL_API_KEY"], prefix="",
                             auth_header_name="X-API-Key")

    def as_player(user: str) -> MatchmakerClient:
        return MatchmakerClient(base_url=config["PORTAL_MATCHMAKING_URL"], token=player_token(config, user))

    def current_user() -> str:
        if session.get("user") not in users:
            abort(redirect(url_for("login")))
        return str(session["user"])

    @app.route("/login", methods=["GET", "POST"])
    def login() -> Any:
        name, password = request.form.get("user", ""), request.form.get("password", "")
        if request.method == "POST" and name in users and check_password_hash(users[name], password):
            session["user"] = name
            return redirect(url_for("home"))
        return render_template("login.html", failed=request.method == "POST")

    @app.post("/logout")
    def logout() -> Any:
        session.clear()
        return redirect(url_for("login"))

    @app.get("/")
    def home() -> Any:
        user = current_user()
        rating = get_player_rating.sync(user, client=board)
        leaders = get_leaderboard.sync(client=board, limit=20)
        listed = list_games.sync(client=games, player_id=user, limit=10)
        mine = [g for g in listed.games if (user, g.game_id) in portal.seat_tokens] if isinstance(listed, GameList) \
            else []  # the tenant's games with this player that the portal holds a seat token of
        return render_template("home.html", user=user, rating=rating, leaders=leaders, games=mine,
                               others=sorted(set(users) - {user}))

    @app.post("/play")
    def play() -> Any:
        """A rated game: the user's ticket at the matchmaker (humans only), made with the user's player token."""
        user = current_user()
        ticket = create_ticket.sync(client=as_player(user), body=CreateTicket(
            player_counts=[CreateTicketPlayerCountsItem.VALUE_2], max_wait_seconds=None))
        if not isinstance(ticket, Ticket):
            abort(502, getattr(ticket, "detail", "the matchmaker refused the ticket"))
        portal.tickets[user] = str(ticket.ticket_id)
        return redirect(url_for("waiting"))

    @app.get("/waiting")
    def waiting() -> Any:
        user = current_user()
        if user not in portal.tickets:
            return redirect(url_for("home"))
        ticket = get_ticket.sync(portal.tickets[user], client=as_player(user))
        if isinstance(ticket, Ticket) and ticket.status == TicketStatus.MATCHED:
            del portal.tickets[user]
            portal.join(user, str(ticket.game_id), int(ticket.seat), str(ticket.seat_token))
            return redirect(url_for("game", game_id=ticket.game_id))
        if not isinstance(ticket, Ticket) or ticket.status != TicketStatus.QUEUED:
            del portal.tickets[user]
            return redirect(url_for("home"))
        return render_template("waiting.html", user=user)

    @app.post("/challenge/<opponent>")
    def challenge(opponent: str) -> Any:
        """An unrated game the portal creates itself, with its own id, a label and the players' names."""
        user = current_user()
        if opponent not in users or opponent == user:
            abort(404)
        seats = [HumanSeatSpec(kind=HumanSeatSpecKind.HUMAN, player_id=u, display_name=u.title())
                 for u in (user, opponent)]
        created = create_game.sync(client=games, body=CreateGame(
            seats=seats, external_id=f"challenge-{secrets.token_hex(8)}", labels=["example-portal", "challenge"]))
        if not isinstance(created, GameCreated):
            abort(502, getattr(created, "detail", "the game service refused the game"))
        for seat in created.seats:
            portal.join(str(seat.player_id), str(created.game_id), int(seat.seat), str(seat.token))
        return redirect(url_for("game", game_id=created.game_id))

    @app.get("/game/<game_id>")
    def game(game_id: str) -> Any:
        """The game in an iframe; the user's seat token leaves the server only in this, their own page."""
        user = current_user()
        token = portal.seat_tokens.get((user, game_id)) or abort(404)
        frame = (f"{game_url}/play/#game={game_id}&token={token}&embed=1&lang=en"
                 f"&origin={quote(config['PORTAL_ORIGIN'], safe='')}")
        return render_template("game.html", user=user, frame=frame, game_origin=game_origin)

    @app.get("/analysis/<game_id>")
    def analysis(game_id: str) -> Any:
        """The replay with the game's analysis (the "analysis ready" link), opened with the user's own seat token."""
        token = portal.seat_tokens.get((current_user(), game_id)) or abort(404)
        depth = "deep" if request.args.get("depth") == "deep" else "quick"
        return redirect(f"{game_url}/play/#game={game_id}&token={token}&replay=1&analysis={depth}")

    @app.get("/notices")
    def notices() -> Any:
        user = current_user()
        with portal.lock:
            return jsonify(notices=list(portal.notices[user])[::-1], results=portal.results[user][::-1])

    @app.post("/webhooks")
    def webhooks() -> Any:
        """The game service's webhooks: the signature checked over the raw body, each delivery id processed once."""
        body = request.get_data()
        if not verify(config["PORTAL_WEBHOOK_SECRET"], request.headers, body):
            abort(401)
        hook = json.loads(body)
        fresh = portal.record(hook, users)
        if fresh and hook["type"] == "game.ended":  # every finished game gets its quick analysis, then a link
            request_analysis.sync(hook["game_id"], client=games, body=AnalysisRequest())
        app.logger.info("webhook %s %s %s", "recorded" if fresh else "duplicate", hook["id"], hook["type"])
        return "", 204

    return app


if __name__ == "__main__":
    missing = [name for name in SETTINGS if not os.environ.get(name)]
    if missing:
        raise SystemExit("example portal: set " + ", ".join(f"{n} ({SETTINGS[n]})" for n in missing))
    host, port = os.environ.get("PORTAL_HOST", "127.0.0.1"), int(os.environ.get("PORTAL_PORT", "5000"))
    create_app({name: os.environ[name] for name in SETTINGS}).run(host=host, port=port)
