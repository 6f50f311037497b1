"""Games brought to a chosen position over the REST API (the service key, then each seat's token), for the browser
tests that look at one situation rather than play up to it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx

SERVICE = {"X-API-Key": "web-test-service-key"}  # tests/web/conftest.py's stack
ADMIN = {"X-Admin-Key": "web-test-admin-key"}


class ApiGame:
    """A game created over the API with the seats given; ``act`` plays for whichever human seat is to move."""

    def __init__(self, stack: dict[str, str], seats: list[dict[str, Any]], **body: Any) -> None:
        self.http = httpx.Client(base_url=stack["game"], timeout=15)
        created = self.http.post("/v1/games", headers=SERVICE, json={"seats": seats, **body})
        assert created.status_code == 201, created.text
        self.id: str = created.json()["game_id"]
        self.tokens: dict[int, str] = {s["seat"]: s["token"] for s in created.json()["seats"] if "token" in s}
        self.moves = 0

    def url(self, stack: dict[str, str], seat: int) -> str:
        return f"{stack['game']}/play/#game={self.id}&token={self.tokens[seat]}"

    def auth(self, seat: int) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[seat]}"}

    def summary(self) -> dict[str, Any]:
        return self.http.get(f"/v1/games/{self.id}").json()

    def view(self, seat: int | None = None) -> dict[str, Any]:
        return self.http.get(f"/v1/games/{self.id}/view", headers=self.auth(seat) if seat is not None else {}).json()

    def position(self) -> dict[str, Any]:
        return self.http.get(f"/v1/games/{self.id}/state", headers=ADMIN).json()["position"]

    def legal(self, seat: int) -> dict[str, Any]:
        return self.http.get(f"/v1/games/{self.id}/legal-actions", headers=self.auth(seat)).json()

    def act(self, pick: Callable[[list[dict[str, Any]]], dict[str, Any]]) -> int:
        """The seat to move plays ``pick(its legal actions)``; returns that seat."""
        seat = self.summary()["to_move"]
        legal = self.legal(seat)
        self.moves += 1
        answer = self.http.post(f"/v1/games/{self.id}/actions", headers=self.auth(seat), json={
            "seat": seat, "action": pick(legal["actions"]), "expected_version": legal["version"],
            "command_id": f"api-{self.moves}"})
        assert answer.status_code == 201, answer.text
        return seat

    def set_up(self) -> int:
        """Every setup placement on the first legal square, until the first turn; returns the seat to move."""
        while self.summary()["stage"] == "setup":
            self.act(lambda actions: actions[0])
        return self.summary()["to_move"]


def builds_first(actions: list[dict[str, Any]]) -> dict[str, Any]:
    """A build while one is legal (castles grow and join), else the end of the turn, else the first action."""
    for kind in ("build", "end_turn"):
        for action in actions:
            if action["type"] == kind:
                return action
    return actions[0]
