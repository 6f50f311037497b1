"""A complete game against a real game service (gunicorn, SQLite, a loopback port) through the generated Python
SDK only (sdk/python/torres_game_client): the portal creates the game with its key, each seat plays with its
seat token, choosing among the legal actions the API lists (no rules engine here), and every seat follows the
game on its SSE stream, opened with a stream ticket as a browser would."""

from __future__ import annotations

import json
import random
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from game.conftest import API_KEY

from torres_game_client import AuthenticatedClient, Client
from torres_game_client.api.games import (
    get_v1_games_game_id,
    get_v1_games_game_id_legal_actions,
    get_v1_games_game_id_verify,
    post_v1_games,
    post_v1_games_game_id_actions,
)
from torres_game_client.api.online import post_v1_games_game_id_stream_tickets
from torres_game_client.models import (
    ActionRequest,
    ActionRequestAction,
    ActionResult,
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
                ticket = post_v1_games_game_id_stream_tickets.sync(self.game_id, client=self.seat_client)
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


def test_a_complete_game_through_the_python_sdk(game_server: str) -> None:
    rng = random.Random(29)
    portal = AuthenticatedClient(base_url=game_server, token=API_KEY, prefix="", auth_header_name="X-API-Key",
                                 raise_on_unexpected_status=True)
    created = post_v1_games.sync(client=portal, body=CreateGame(
        edition=CreateGameEdition.YUCATA,
        seats=[HumanSeatSpec(kind=HumanSeatSpecKind.HUMAN, player_id="ada", display_name="Ada"),
               HumanSeatSpec(kind=HumanSeatSpecKind.HUMAN, player_id="bob", display_name="Bob")],
        external_id="sdk-python-1", labels=["sdk"]))
    assert isinstance(created, GameCreated) and isinstance(created.seats, list)
    game_id = created.game_id
    assert isinstance(game_id, str)
    seats = {seat.seat: AuthenticatedClient(base_url=game_server, token=seat.token, raise_on_unexpected_status=True)
             for seat in created.seats}
    assert sorted(seats) == [0, 1] and all(isinstance(seat.token, str) for seat in created.seats)

    followers = [Follower(client, game_server, game_id) for client in seats.values()]
    for follower in followers:
        follower.start()
        assert follower.connected.wait(30) and follower.error is None, follower.error

    actions = 0
    while True:
        summary = get_v1_games_game_id.sync(game_id, client=seats[0])
        assert isinstance(summary, GameSummary)
        if summary.status == "over":
            break
        seat = summary.to_move
        assert isinstance(seat, int)
        legal = get_v1_games_game_id_legal_actions.sync(game_id, client=seats[seat])
        assert isinstance(legal, LegalActions) and isinstance(legal.version, int) and legal.actions
        chosen = rng.choice(legal.actions)
        result = post_v1_games_game_id_actions.sync(game_id, client=seats[seat], body=ActionRequest(
            seat=seat, action=ActionRequestAction.from_dict(chosen), expected_version=legal.version,
            command_id=f"sdk-py-{actions}"))
        assert isinstance(result, ActionResult) and isinstance(result.version, int) and result.version > legal.version
        actions += 1
        assert actions < 3000, "the game did not end"

    assert summary.stage == "over" and isinstance(summary.scores, list) and len(summary.scores) == 2
    assert summary.winners, summary
    assert summary.external_id == "sdk-python-1"
    verified = get_v1_games_game_id_verify.sync(game_id, client=portal)
    assert isinstance(verified, Verify) and verified.ok is True and verified.version == summary.version

    for follower in followers:
        follower.join(60)
        assert follower.error is None, follower.error
        assert follower.closing == "game-over"
        # every version once, in order, up to the last one the game reached
        assert follower.versions == list(range(follower.versions[0], summary.version + 1))
        assert follower.events, "a seat's stream opened with a ticket carries the version's events"
    print(f"\n{actions} actions through the Python SDK; final scores {summary.scores}")
