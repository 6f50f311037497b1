"""Helpers of the online-play tests: a settable clock and in-process drivers of a game."""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import torres_rules as tr
from torres_game.access import Credentials
from torres_game.service import GameService

from .conftest import SERVICE


class Clock:
    """The service's clock in a test: time moves only when the test says so, so a 0.5 s turn limit runs out
    exactly when the test advances past it, however loaded the machine is."""

    def __init__(self) -> None:
        self.t = datetime.now(UTC)

    def __call__(self) -> datetime:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += timedelta(seconds=seconds)


def create(client: Any, players: int = 2, **body: Any) -> dict[str, Any]:
    seats = [{"kind": "human", "player_id": f"p{i}"} for i in range(players)]
    response = client.post("/v1/games", json={"seats": seats, **body}, headers=SERVICE)
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def creds(game: dict[str, Any], seat: int) -> Credentials:
    return Credentials(token=game["seats"][seat]["token"])


def state(svc: GameService, game: dict[str, Any]) -> tr.State:
    return svc.games.current(game["game_id"]).state


def act(svc: GameService, game: dict[str, Any], action: dict[str, Any], tag: str = "") -> dict[str, Any]:
    """The seat to move submits ``action`` at the current version (in-process: fast enough to drive whole games)."""
    folded = svc.games.current(game["game_id"])
    seat = folded.to_move
    assert seat is not None
    return svc.commands.submit_action(game["game_id"], creds(game, seat), seat=seat, action=action,
                             expected_version=folded.version, command_id=f"c{folded.version}{tag}").body


def drive(svc: GameService, game: dict[str, Any], rng: random.Random, until: Callable[[tr.State], bool],
          *, prefer: str | None = None, limit: int = 3000) -> tr.State:
    """Random legal actions by whoever is to move (and not forfeited: the service passes for those) until
    ``until(state)``; ``prefer`` picks that action type when legal, half of the time."""
    for _ in range(limit):
        folded = svc.games.current(game["game_id"])
        if until(folded.state):
            return folded.state
        assert not folded.over, "the game ended before the wanted position"
        legal = tr.legal_actions(folded.state)
        preferred = [a for a in legal if a["type"] == prefer]
        act(svc, game, preferred[0] if preferred and rng.random() < 0.5 else rng.choice(legal))
    raise AssertionError("the wanted position was not reached")


def log(svc: GameService, game: dict[str, Any]) -> list[Any]:
    return svc.store.read(game["game_id"])


def types_after(svc: GameService, game: dict[str, Any], version: int) -> list[str]:
    return [e.type for e in svc.store.read(game["game_id"], after=version)]
