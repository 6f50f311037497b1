"""The two kinds of game the terminal plays: one in this process (opponents: random bots) and one on a game
service over REST (opponents: the service's AI seats). The prompt loop in `__main__` uses either the same way."""

from __future__ import annotations

import random
import uuid
from collections.abc import Callable
from typing import Any, Protocol

import httpx

import torres_rules as tr


class Game(Protocol):
    seat: int

    def view(self) -> dict[str, Any]: ...

    def legal_actions(self) -> list[dict[str, Any]]: ...

    def submit(self, action: dict[str, Any]) -> str | None:
        """None when accepted, else the reason it was refused."""
        ...

    def wait_for_turn(self, say: Callable[[str], None]) -> None:
        """Return once it is this seat's turn or the game is over."""
        ...


class LocalGame:
    """A game in this process; every other seat plays uniformly random legal actions."""

    def __init__(self, players: int, edition: str, master: bool, seed: int, seat: int) -> None:
        self.state = tr.new_game(players, seed=seed, edition=edition, master=master)
        self.seat = seat
        self._bots = random.Random(seed)

    def view(self) -> dict[str, Any]:
        return tr.view(self.state, self.seat)

    def legal_actions(self) -> list[dict[str, Any]]:
        return tr.legal_actions(self.state)

    def submit(self, action: dict[str, Any]) -> str | None:
        try:
            self.state = tr.apply(self.state, action)
        except tr.IllegalAction as e:
            return str(e)
        return None

    def wait_for_turn(self, say: Callable[[str], None]) -> None:
        while not tr.is_over(self.state) and self.state.to_move != self.seat:
            action = self._bots.choice(tr.legal_actions(self.state))
            say(f"  seat {self.state.to_move} plays {tr.action_text(action)}")
            self.state = tr.apply(self.state, action)


class RemoteGame:
    """A game on the game service: creates it with the service key, then plays the human seat with its token."""

    def __init__(self, base_url: str, api_key: str, players: int, edition: str, master: bool, seat: int,
                 level: str, client: httpx.Client | None = None) -> None:
        self.http = client or httpx.Client(base_url=base_url, timeout=40.0)
        self.seat = seat
        seats: list[dict[str, Any]] = [{"kind": "ai", "level": level} for _ in range(players)]
        seats[seat] = {"kind": "human", "player_id": "terminal"}
        created = self._ok(self.http.post("/v1/games", headers={"X-API-Key": api_key},
                                          json={"edition": edition, "master": master, "seats": seats}))
        self.game_id = created["game_id"]
        token = next(s["token"] for s in created["seats"] if s["seat"] == seat)
        self.auth = {"Authorization": f"Bearer {token}"}
        self.version = created["version"]

    @staticmethod
    def _ok(response: httpx.Response) -> dict[str, Any]:
        if response.is_error:
            body = response.json() if response.headers.get("content-type", "").endswith("json") else {}
            raise RuntimeError(f"game service answered {response.status_code}: {body.get('detail', response.text)}")
        return response.json()

    def view(self) -> dict[str, Any]:
        body = self._ok(self.http.get(f"/v1/games/{self.game_id}/view", headers=self.auth))
        self.version = body["version"]
        return body["view"]

    def legal_actions(self) -> list[dict[str, Any]]:
        body = self._ok(self.http.get(f"/v1/games/{self.game_id}/legal-actions", headers=self.auth))
        self.version = body["version"]
        return body["actions"]

    def submit(self, action: dict[str, Any]) -> str | None:
        response = self.http.post(
            f"/v1/games/{self.game_id}/actions", headers=self.auth,
            json={"seat": self.seat, "action": action, "expected_version": self.version,
                  "command_id": str(uuid.uuid4())},
        )
        if response.status_code == 201:
            self.version = response.json()["version"]
            return None
        if 400 <= response.status_code < 500:
            return response.json().get("detail", response.text)
        return self._ok(response) and None

    def wait_for_turn(self, say: Callable[[str], None]) -> None:
        while True:
            view = self.view()
            if view["stage"] == "over" or view["to_move"] == self.seat:
                return
            say(f"  waiting for seat {view['to_move']} ...")
            self._ok(self.http.get(f"/v1/games/{self.game_id}/wait",
                                   params={"version": self.version, "timeout": 25}))
