"""Complete random games played in-process through the game service, for the audit tests and the benchmark.

Every feature a record must prove is exercised: the three editions, the master version, AI seats, clocks
with timeouts (forfeit and AI policies), undos, resignations and abandonment. The service's clock is the
test's (``Clock``), so a deadline passes exactly when the driver says.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from game.conftest import API_KEY, SERVICE
from game.online_helpers import Clock

import torres_rules as tr
from torres_game import ai_turns
from torres_game.access import Credentials
from torres_game.errors import ServiceError
from torres_game.service import GameService


@dataclass(frozen=True)
class Plan:
    """One kind of game: who sits, the edition, and how often the driver times out, resigns or undoes."""

    players: int = 2
    edition: str = "rio_grande"
    master: bool = False
    ai_seats: tuple[int, ...] = ()
    clock: dict[str, Any] | None = None
    timeout: dict[str, Any] | None = None
    undo: bool = True
    p_undo: float = 0.0
    p_timeout: float = 0.0
    p_resign: float = 0.0
    abandon_after: int | None = None  # actions, then the portal abandons the game
    timeout_at: int | None = None  # after this many actions the seat to move times out (once), besides p_timeout
    resign_at: int | None = None  # after this many actions the seat to move resigns (once), besides p_resign
    options: dict[str, Any] = field(default_factory=dict)
    prefer: str | None = None  # an action type the driver picks, when legal, a third of the time
    visibility: str | None = None  # "public" (the service's default), "unlisted" or "private"

    def body(self) -> dict[str, Any]:
        seats = [{"kind": "ai", "level": "easy"} if i in self.ai_seats else {"kind": "human", "player_id": f"p{i}"}
                 for i in range(self.players)]
        body: dict[str, Any] = {"seats": seats, "edition": self.edition, "master": self.master, "undo": self.undo,
                                "options": self.options}
        if self.clock is not None:
            body["clock"] = self.clock
        if self.timeout is not None:
            body["timeout"] = self.timeout
        if self.visibility is not None:
            body["visibility"] = self.visibility
        return body


CLOCK = {"turn_seconds": 60, "bank_seconds": 600, "increment_seconds": 5}

#: The kinds of game every backend plays to the end: each edition, master, AI seats, clocks, and each way a
#: game can end or a seat can leave.
PLANS = {
    "rio_grande-2": Plan(2, "rio_grande", p_undo=0.05),
    "ravensburger-3-master": Plan(3, "ravensburger", master=True, p_undo=0.05),
    "yucata-4-master-ai": Plan(4, "yucata", master=True, ai_seats=(1, 3), p_undo=0.05),
    "clock-forfeit-4": Plan(4, "rio_grande", clock=CLOCK, timeout={"policy": "forfeit"}, p_timeout=0.002,
                            timeout_at=30, p_undo=0.05),
    "clock-ai-turn-3": Plan(3, "yucata", clock=CLOCK, timeout={"policy": "ai", "scope": "turn", "level": "easy"},
                            p_timeout=0.01, timeout_at=20, p_undo=0.05),
    "clock-ai-game-2": Plan(2, "ravensburger", master=True, clock=CLOCK,
                            timeout={"policy": "ai", "scope": "game", "level": "easy"}, timeout_at=50),
    "resign-4": Plan(4, "ravensburger", p_resign=0.002, resign_at=40, p_undo=0.03),
    "resign-2": Plan(2, "yucata", resign_at=70),
    "undo-off-3": Plan(3, "rio_grande", undo=False),
    "abandoned-3": Plan(3, "yucata", master=True, abandon_after=60, p_undo=0.05),
}


def play(svc: GameService, client: Any, clock: Clock, plan: Plan, seed: int, *, limit: int = 5000) -> str:
    """Create a game of ``plan`` and play it to its end with random choices from ``seed``; its game id."""
    rng = random.Random(seed)
    response = client.post("/v1/games", json=plan.body(), headers=SERVICE)
    assert response.status_code == 201, response.get_json()
    game = response.get_json()
    gid = game["game_id"]
    tokens = {seat["seat"]: seat.get("token") for seat in game["seats"]}
    actions = 0
    # Each feature a plan asks for happens at least once, whatever the server's seed deals: the first undoable
    # moment is undone when the plan undoes at all.
    forced = {"timeout": plan.timeout_at, "resign": plan.resign_at, "undo": 0 if plan.p_undo else None}
    for _ in range(limit):
        folded = svc.games.current(gid)
        if folded.over:
            return gid
        seat = folded.to_move
        assert seat is not None
        clock.advance(rng.uniform(0, 3))
        if folded.life.ai_plays(seat):
            ai_turns.play_turn(svc, gid, seat, folded.version, ai_turns.random_decide(rng))
            continue
        if plan.abandon_after is not None and actions >= plan.abandon_after:
            svc.commands.abandon(gid, Credentials(api_key=API_KEY), reason="the portal closed the table")
            continue
        deadline = folded.life.deadline()
        choice = _choose(plan, rng, forced, actions, deadline is not None, bool(folded.life.undo))
        creds = Credentials(token=tokens[seat])
        if choice == "timeout":
            assert deadline is not None
            clock.t = deadline + timedelta(microseconds=rng.randint(1, 5000))
            assert svc.deadlines.enforce_deadline(gid)
            continue
        if choice == "resign":
            svc.commands.resign(gid, creds, seat=seat)
            continue
        if choice == "undo":
            svc.commands.undo(gid, creds, seat=seat, expected_version=folded.version, command_id=f"u{folded.version}")
            continue
        legal = tr.legal_actions(folded.state)
        preferred = [a for a in legal if a["type"] == plan.prefer]
        action = rng.choice(preferred if preferred and rng.random() < 0.33 else legal)
        try:
            svc.commands.submit_action(gid, creds, seat=seat, action=action, expected_version=folded.version,
                              command_id=f"c{folded.version}")
        except ServiceError as exc:  # pragma: no cover - a driver bug, reported with the game
            raise AssertionError(f"game {gid} refused {action}: {exc}") from exc
        actions += 1
    raise AssertionError(f"game {gid} did not end in {limit} steps")


def _choose(plan: Plan, rng: random.Random, forced: dict[str, int | None], actions: int, clocked: bool,
            undoable: bool) -> str:
    """What the seat to move does: "timeout", "resign", "undo" or "act" (a random legal action)."""
    due = forced["timeout"]
    if due is not None and actions >= due and clocked:
        forced["timeout"] = None
        return "timeout"
    due = forced["resign"]
    if due is not None and actions >= due:
        forced["resign"] = None
        return "resign"
    if forced["undo"] is not None and undoable:
        forced["undo"] = None
        return "undo"
    roll = rng.random()
    if clocked and roll < plan.p_timeout:
        return "timeout"
    if roll < plan.p_timeout + plan.p_resign:
        return "resign"
    if undoable and roll < plan.p_timeout + plan.p_resign + plan.p_undo:
        return "undo"
    return "act"
