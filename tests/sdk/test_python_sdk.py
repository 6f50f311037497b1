"""Complete games against real services (the game service under gunicorn on SQLite, the matchmaker embedded, each
on a loopback port) through the generated Python SDKs only (sdk/python): the portal creates a game with its key,
or two players are matched into one; each seat plays with its seat token, choosing among the legal actions the
API lists (no rules engine here), and every seat follows the game on its SSE stream, opened with a stream ticket
as a browser would."""

from __future__ import annotations

import json
import random
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from game.conftest import API_KEY

from torres_game_client import AuthenticatedClient, Client
from torres_game_client.api.games import (
    create_game,
    get_analysis,
    get_game,
    get_legal_actions,
    request_analysis,
    submit_action,
    verify_game,
)
from torres_game_client.api.online import create_stream_ticket
from torres_game_client.models import (
    ActionRequest,
    ActionRequestAction,
    ActionResult,
    Analysis,
    AnalysisRequest,
    AnalysisRequestDepth,
    AnalysisStatus,
    CreateGame,
    CreateGameEdition,
    GameCreated,
    GameSummary,
    HumanSeatSpec,
    HumanSeatSpecKind,
    LegalActions,
    StreamTicket,
    Verify,
)
from torres_matchmaking_client import AuthenticatedClient as MatchmakingClient
from torres_matchmaking_client.api.tickets import (
    create_ticket,
    get_player_rating,
    wait_ticket,
)
from torres_matchmaking_client.models import (
    CreateTicket,
    CreateTicketEdition,
    CreateTicketPlayerCountsItem,
    Rating,
    Ticket,
    TicketStatus,
    WaitTicketStatus,
)
from torres_service.principals import DEV_ISSUER, PlayerTokens, issue_player_token

from .conftest import PLAYER_TOKEN_SECRET

pytestmark = pytest.mark.timeout(300)


def sse_events(lines: Iterator[str]) -> Iterator[dict[str, str]]:
    """Server-sent events from a stream's lines: ``{"event", "data", "id"}`` per event (comments skipped)."""
    event: dict[str, str] = {}
    for line in lines:
        if not line:
            if "data" in event or "event" in event:
                yield event
            event = {}
        elif not line.startswith(":"):
            name, _, value = line.partition(":")
            event[name] = value.removeprefix(" ")


class Follower(threading.Thread):
    """One seat's SSE stream, read to its end in a thread: a fresh ticket per connection (tickets are single
    use), ``Last-Event-ID`` on a reconnect after ``timeout`` or ``shutdown``, until ``game-over``."""

    def __init__(self, seat_client: AuthenticatedClient, base_url: str, game_id: str) -> None:
        super().__init__(daemon=True)
        self.seat_client, self.browser, self.game_id = seat_client, Client(base_url=base_url), game_id
        self.versions: list[int] = []
        self.events: list[dict[str, Any]] = []
        self.closing: str | None = None
        self.connected = threading.Event()
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            while self.closing is None:
                ticket = create_stream_ticket.sync(self.game_id, client=self.seat_client)
                assert isinstance(ticket, StreamTicket) and isinstance(ticket.stream_url, str)
                headers = {"Last-Event-ID": str(self.versions[-1])} if self.versions else {}
                http = self.browser.get_httpx_client()  # the SDK's own HTTP client, with no credentials
                with http.stream("GET", ticket.stream_url, headers=headers,
                                 timeout=httpx.Timeout(10, read=120)) as response:
                    assert response.status_code == 200, response.read()
                    assert response.headers["content-type"].startswith("text/event-stream")
                    self.connected.set()
                    for event in sse_events(response.iter_lines()):
                        if event.get("event", "message") == "version":
                            self.versions.append(int(event["id"]))
                            self.events += json.loads(event["data"]).get("events", [])
                        elif event.get("event") == "game-over":
                            self.closing = "game-over"
                            break
        except BaseException as exc:  # reported by the test
            self.error = exc
            self.connected.set()


def play_to_the_end(base_url: str, game_id: str, tokens: dict[int, str], rng: random.Random,
                    command_prefix: str) -> GameSummary:
    """Every seat (``tokens``: seat -> seat token) follows the game on its stream and plays, whenever it is to
    move, one of the legal actions the API lists, until the game is over; every stream must then have shown each
    version once, in order, with its events, and closed with ``game-over``. Returns the final summary."""
    seats = {seat: AuthenticatedClient(base_url=base_url, token=token, raise_on_unexpected_status=True)
             for seat, token in tokens.items()}
    followers = [Follower(client, base_url, game_id) for client in seats.values()]
    for follower in followers:
        follower.start()
        assert follower.connected.wait(30) and follower.error is None, follower.error
    any_seat = next(iter(seats.values()))
    actions = 0
    while True:
        summary = get_game.sync(game_id, client=any_seat)
        assert isinstance(summary, GameSummary)
        if summary.status == "over":
            break
        seat = summary.to_move
        assert isinstance(seat, int)
        legal = get_legal_actions.sync(game_id, client=seats[seat])
        assert isinstance(legal, LegalActions) and isinstance(legal.version, int) and legal.actions
        chosen = rng.choice(legal.actions)
        result = submit_action.sync(game_id, client=seats[seat], body=ActionRequest(
            seat=seat, action=ActionRequestAction.from_dict(chosen), expected_version=legal.version,
            command_id=f"{command_prefix}-{actions}"))
        assert isinstance(result, ActionResult) and isinstance(result.version, int) and result.version > legal.version
        actions += 1
        assert actions < 3000, "the game did not end"
    assert summary.stage == "over" and isinstance(summary.scores, list) and len(summary.scores) == len(seats)
    assert summary.winners, summary
    for follower in followers:
        follower.join(60)
        assert follower.error is None, follower.error
        assert follower.closing == "game-over"
        assert follower.versions == list(range(follower.versions[0], summary.version + 1))  # once each, in order
        assert follower.events, "a seat's stream opened with a ticket carries the version's events"
    print(f"\n{actions} actions through the Python SDK; final scores {summary.scores}")
    return summary


def test_a_complete_game_through_the_python_sdk(game_server: str) -> None:
    portal = AuthenticatedClient(base_url=game_server, token=API_KEY, prefix="", auth_header_name="X-API-Key",
                                 raise_on_unexpected_status=True)
    created = create_game.sync(client=portal, body=CreateGame(
        edition=CreateGameEdition.YUCATA,
        seats=[HumanSeatSpec(kind=HumanSeatSpecKind.HUMAN, player_id="ada", display_name="Ada"),
               HumanSeatSpec(kind=HumanSeatSpecKind.HUMAN, player_id="bob", display_name="Bob")],
        external_id="sdk-python-1", labels=["sdk"]))
    assert isinstance(created, GameCreated) and isinstance(created.seats, list)
    game_id = created.game_id
    assert isinstance(game_id, str)
    tokens = {seat.seat: seat.token for seat in created.seats}
    assert sorted(tokens) == [0, 1] and all(isinstance(token, str) for token in tokens.values())

    summary = play_to_the_end(game_server, game_id, tokens, random.Random(29), "sdk-py")  # type: ignore[arg-type]

    assert summary.external_id == "sdk-python-1"
    verified = verify_game.sync(game_id, client=portal)
    assert isinstance(verified, Verify) and verified.ok is True and verified.version == summary.version

    # The post-game analysis, computed by the server's in-process AI driver: requested, then read once ready.
    asked = request_analysis.sync(game_id, client=portal, body=AnalysisRequest(depth=AnalysisRequestDepth.QUICK))
    assert isinstance(asked, Analysis) and asked.status in (AnalysisStatus.PENDING, AnalysisStatus.READY)
    deadline = time.monotonic() + 120
    while (analysis := get_analysis.sync(game_id, client=portal)).status != AnalysisStatus.READY:  # type: ignore[union-attr]
        assert time.monotonic() < deadline, "the analysis was not ready in 2 minutes"
        time.sleep(0.5)
    assert isinstance(analysis, Analysis)
    # A nullable nested object comes out of the generator as a plain mapping model (as `Verify.first_inconsistency`).
    result = analysis.to_dict()["result"]
    assert result["final_scores"] == summary.scores and len(result["scorings"]) == 3
    assert len(result["turns"]) >= 20 and all(len(t["share_after"]) == 2 for t in result["turns"])


def player_token(player_id: str) -> str:
    """What a portal's server hands its logged-in player: a token signed with the tenant's secret (docs/security.md
    shows the same in PyJWT)."""
    return issue_player_token(PlayerTokens(DEV_ISSUER, hs256_secret=PLAYER_TOKEN_SECRET), player_id)


def test_a_matchmade_game_through_both_python_sdks(matchmaker: str, game_server: str) -> None:
    """Two players queue through the matchmaking SDK, are matched into a game on the game service, play it through
    the game SDK, and their ratings change."""
    players = {name: MatchmakingClient(base_url=matchmaker, token=player_token(name), raise_on_unexpected_status=True)
               for name in ("ada", "bob")}
    tickets = {}
    for name, client in players.items():
        ticket = create_ticket.sync(client=client, body=CreateTicket(
            player_counts=[CreateTicketPlayerCountsItem.VALUE_2], edition=CreateTicketEdition.YUCATA,
            max_wait_seconds=None))
        assert isinstance(ticket, Ticket) and ticket.status == TicketStatus.QUEUED and ticket.player_id == name
        tickets[name] = ticket.ticket_id
    matched: dict[str, Ticket] = {}
    for name, client in players.items():
        deadline = time.monotonic() + 60
        while name not in matched:
            ticket = wait_ticket.sync(tickets[name], client=client,
                                                        status=WaitTicketStatus.QUEUED, timeout=5)
            assert isinstance(ticket, Ticket)
            if ticket.status == TicketStatus.MATCHED:
                matched[name] = ticket
            assert time.monotonic() < deadline, "no match"
    game_ids = {ticket.game_id for ticket in matched.values()}
    assert len(game_ids) == 1 and sorted(ticket.seat for ticket in matched.values()) == [0, 1]  # type: ignore[type-var]
    game_id = game_ids.pop()
    assert isinstance(game_id, str)

    play_to_the_end(game_server, game_id, {t.seat: t.seat_token for t in matched.values()},  # type: ignore[misc]
                    random.Random(6), "sdk-mm")

    deadline = time.monotonic() + 60
    for name, client in players.items():
        while True:
            rating = get_player_rating.sync(name, client=client)
            assert isinstance(rating, Rating)
            if rating.games == 1:
                break
            assert time.monotonic() < deadline, f"{name}'s rating did not take the game in"
            time.sleep(0.2)
