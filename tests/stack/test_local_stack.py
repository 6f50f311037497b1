"""`make run`: the launcher brings up the game service and the matchmaker on embedded defaults (no servers),
and a person can create and play a game against them."""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import pytest
from terminal.test_terminal import scripted

from stack.launcher import local_stack
from torres_terminal.__main__ import play
from torres_terminal.games import RemoteGame


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """One `make run` for the module: one test plays a game, the other queues a player of its own; neither reads
    what the other left."""
    with local_stack(tmp_path_factory.mktemp("stack") / "data") as running:
        yield running


def test_make_run_serves_both_services_and_a_person_can_play(stack: dict[str, str]) -> None:
    assert "curl" in stack["banner"]
    # what the terminal game's opponents do, and the other levels
    banner = " ".join(stack["banner"].split())
    assert "the AI seats play at level easy, random legal moves" in banner, banner
    assert "medium = plans each turn greedily" in banner and "hard = Monte-Carlo search" in banner, banner
    assert httpx.get(f"{stack['game']}/readyz").status_code == 200
    assert httpx.get(f"{stack['matchmaking']}/healthz").status_code == 200
    game = RemoteGame(stack["game"], stack["key"], players=2, edition="rio_grande", master=False, seat=0,
                      level="easy")
    view = play(game, ask=scripted(5), say=lambda _: None)
    assert view["stage"] == "over"


def test_make_run_matches_a_queued_player_with_an_ai_seat(stack: dict[str, str]) -> None:
    """The player's token comes from make run's development issuer (the service key), as the web lobby gets it."""
    issued = httpx.post(f"{stack['matchmaking']}/v1/dev/player-tokens", json={"player_id": "alice"},
                        headers={"X-API-Key": stack["key"]})
    assert issued.status_code == 201, issued.text
    alice = {"Authorization": f"Bearer {issued.json()['token']}"}
    ticket = httpx.post(f"{stack['matchmaking']}/v1/tickets", json={"player_counts": [2], "max_wait_seconds": 0},
                        headers=alice).json()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        body = httpx.get(f"{stack['matchmaking']}/v1/tickets/{ticket['ticket_id']}", headers=alice).json()
        if body["status"] == "matched":
            break
        time.sleep(0.3)
    assert body["status"] == "matched", body
    view = httpx.get(f"{stack['game']}/v1/games/{body['game_id']}/view",
                     headers={"Authorization": f"Bearer {body['seat_token']}"})
    assert view.status_code == 200 and view.json()["seat"] == body["seat"]
