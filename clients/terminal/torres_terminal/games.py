"""The two kinds of game the terminal plays: one in this process (opponents: bots playing random legal moves) and
one on a game service over REST (opponents: the service's AI seats). The prompt loop in `__main__` uses either the
same way: it plays the human seat, and asks `news()` what happened since it last asked -- every seat's moves (the
reader's own too, so that the scoring its last move of a phase set off is told) and each phase's scoring."""

from __future__ import annotations

import random
import uuid
from dataclasses import dataclass
from typing import Any, Protocol

import httpx

import torres_rules as tr
from torres_online.lifecycle import AI_LEVELS


@dataclass(frozen=True)
class Happening:
    """One thing that happened in the game, as the reader may know it."""

    seat: int | None  #: whose move it was (None: the game's own event)
    action: dict[str, Any] | None  #: the move, in wire form (a kept card of another seat without its card)
    event: str = "action_applied"  #: the log event's type (resigned, timed_out, ... for the others)
    auto: bool = False  #: played by the service for a seat that left
    scoring: dict[str, Any] | None = None  #: the phase scoring this move set off (the engine's breakdown)
    castles: tuple[dict[str, Any], ...] = ()  #: the castles the scoring's indices refer to


class Game(Protocol):
    seat: int
    #: The seats as the service lists them (`display_name` where a portal named one); None for a local game.
    seats: list[dict[str, Any]] | None
    #: What the other seats are: "bots playing random legal moves", "the service's AI (easy: random moves)".
    opponents: str

    def view(self) -> dict[str, Any]: ...

    def legal_actions(self) -> list[dict[str, Any]]: ...

    def submit(self, action: dict[str, Any]) -> str | None:
        """None when accepted, else the reason it was refused."""
        ...

    def wait_for_turn(self) -> None:
        """Return once it is this seat's turn or the game is over."""
        ...

    def news(self) -> list[Happening]:
        """What happened since the last call, oldest first."""
        ...

    def winners(self) -> list[int]:
        """The seats ranked first once the game is over."""
        ...


def _public(action: dict[str, Any], seat: int, reader: int) -> dict[str, Any]:
    """``action`` as ``reader`` may know it: another seat's kept card stays unnamed (docs/rules.md section 13)."""
    if action["type"] == "keep_card" and seat != reader:
        return {"type": "keep_card"}
    return action


class LocalGame:
    """A game in this process; every other seat plays uniformly random legal actions."""

    opponents = "bots playing random legal moves"
    seats = None

    def __init__(self, players: int, edition: str, master: bool, seed: int, seat: int) -> None:
        self.state = tr.new_game(players, seed=seed, edition=edition, master=master)
        self.seat = seat
        self._bots = random.Random(seed)
        self._news: list[Happening] = []

    def view(self) -> dict[str, Any]:
        return tr.view(self.state, self.seat)

    def legal_actions(self) -> list[dict[str, Any]]:
        return tr.legal_actions(self.state)

    def _apply(self, action: dict[str, Any]) -> None:
        before, mover = self.state, self.state.to_move
        self.state = tr.apply(before, action)
        scoring = tr.scored_between(before, self.state)
        self._news.append(Happening(mover, _public(action, mover, self.seat), scoring=scoring,
                                    castles=tuple(tr.castles_of(before)) if scoring else ()))

    def submit(self, action: dict[str, Any]) -> str | None:
        try:
            self._apply(action)
        except tr.IllegalAction as e:
            return str(e)
        return None

    def wait_for_turn(self) -> None:
        while not tr.is_over(self.state) and self.state.to_move != self.seat:
            self._apply(self._bots.choice(tr.legal_actions(self.state)))

    def news(self) -> list[Happening]:
        news, self._news = self._news, []
        return news

    def winners(self) -> list[int]:
        winner = tr.winner(self.state)
        return [] if winner is None else [winner]


class RemoteGame:
    """A game on the game service: creates it with the service key, then plays the human seat with its token."""

    def __init__(self, base_url: str, api_key: str, players: int, edition: str, master: bool, seat: int,
                 level: str, client: httpx.Client | None = None) -> None:
        self.http = client or httpx.Client(base_url=base_url, timeout=40.0)
        self.seat = seat
        self.opponents = f"the service's AI, level {level} ({AI_LEVELS.get(level, level)})"
        seats: list[dict[str, Any]] = [{"kind": "ai", "level": level} for _ in range(players)]
        seats[seat] = {"kind": "human", "player_id": "terminal"}
        created = self._ok(self.http.post("/v1/games", headers={"X-API-Key": api_key},
                                          json={"edition": edition, "master": master, "seats": seats}))
        self.game_id = created["game_id"]
        token = next(s["token"] for s in created["seats"] if s["seat"] == seat)
        self.auth = {"Authorization": f"Bearer {token}"}
        self.version = created["version"]
        self.seen = 0  # the last event told by news()
        self.seats = self._ok(self.http.get(f"/v1/games/{self.game_id}", headers=self.auth)).get("seats")

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

    def wait_for_turn(self) -> None:
        while True:
            view = self.view()
            if view["stage"] == "over" or view["to_move"] == self.seat:
                return
            self._ok(self.http.get(f"/v1/games/{self.game_id}/wait",
                                   params={"version": self.version, "timeout": 25}))

    def news(self) -> list[Happening]:
        """The events after the last one told, as this seat may read them (the service redacts them); for an
        end of turn, the scoring it set off, from the service's replay of that version."""
        news = []
        while True:
            page = self._ok(self.http.get(f"/v1/games/{self.game_id}/events", headers=self.auth,
                                          params={"after": self.seen, "limit": 500}))
            for event in page["events"]:
                payload = event.get("payload") or {}
                seat, action = payload.get("seat"), payload.get("action")
                if event["type"] == "action_applied" and action:
                    scoring, castles = None, ()
                    if action.get("type") == "end_turn":
                        at = self._ok(self.http.get(f"/v1/games/{self.game_id}/state", headers=self.auth,
                                                    params={"version": event["version"]}))
                        # the end of a turn changes no block: the castles after it are those the scoring counted
                        scoring, castles = at.get("scoring"), tuple(at["castles"])
                    news.append(Happening(seat, action, auto=bool(payload.get("auto")), scoring=scoring,
                                          castles=castles))
                elif event["type"] in ("resigned", "timed_out", "action_undone", "abandoned"):
                    news.append(Happening(seat, None, event=event["type"]))
            if page["next_after"] == self.seen:
                return news
            self.seen = page["next_after"]

    def winners(self) -> list[int]:
        return list(self._ok(self.http.get(f"/v1/games/{self.game_id}", headers=self.auth)).get("winners") or [])

