"""Player ratings: openskill Plackett-Luce (multiplayer), stored per player in Redis.

Matching uses ``mu`` (the skill estimate); the leaderboard uses the conservative ``ordinal``
(mu − 3σ), so a newcomer with a lucky first game does not top the board. AI seats take part in
the update with a fixed rating per level, but only human ratings are stored.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from openskill.models import PlackettLuce

from .store import Redis

MODEL = PlackettLuce()
DEFAULT_MU = MODEL.mu
DEFAULT_SIGMA = MODEL.sigma
#: What an AI seat of each level counts as when rating the humans who played against it.
AI_RATINGS = {"easy": (20.0, 2.0), "medium": (25.0, 2.0), "hard": (30.0, 2.0)}
#: An AI seat's level is chosen from the ticket's mu: below 23 easy, below 28 medium, else hard.
AI_LEVEL_BOUNDS = ((23.0, "easy"), (28.0, "medium"))


def ai_level_for(mu: float) -> str:
    """The AI level nearest a player's skill, so a filled game is still a fair one."""
    for bound, level in AI_LEVEL_BOUNDS:
        if mu < bound:
            return level
    return "hard"


@dataclass(frozen=True)
class Rating:
    player_id: str
    mu: float = DEFAULT_MU
    sigma: float = DEFAULT_SIGMA
    games: int = 0

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma

    def to_json(self) -> dict[str, Any]:
        return {"player_id": self.player_id, "mu": round(self.mu, 4), "sigma": round(self.sigma, 4),
                "ordinal": round(self.ordinal, 4), "games": self.games}


def ranks_of(scores: Sequence[int], winner: int | None) -> list[int]:
    """Finishing ranks (0 = best): the rules' winner first (it includes tie-breaks), then by score."""
    keys = [(seat != winner, -score) for seat, score in enumerate(scores)]
    ordered = sorted(set(keys))
    return [ordered.index(k) for k in keys]


def rate_game(seats: Sequence[dict[str, Any]], current: dict[str, Rating], scores: Sequence[int],
              winner: int | None, *, ranks: Sequence[int] | None = None) -> list[Rating]:
    """New ratings of the human seats after one finished game (one team per seat). ``ranks``: the result's
    own finishing order when it has one (a game ended early: seats that resigned or timed out rank last)."""
    teams = []
    for seat in seats:
        if seat["kind"] == "human":
            r = current[seat["player_id"]]
            teams.append([MODEL.rating(mu=r.mu, sigma=r.sigma)])
        else:
            mu, sigma = AI_RATINGS.get(seat.get("level", "medium"), AI_RATINGS["medium"])
            teams.append([MODEL.rating(mu=mu, sigma=sigma)])
    updated = MODEL.rate(teams, ranks=list(ranks) if ranks is not None else ranks_of(scores, winner))
    result = []
    for seat, team in zip(seats, updated, strict=True):
        if seat["kind"] == "human":
            old = current[seat["player_id"]]
            result.append(Rating(old.player_id, team[0].mu, team[0].sigma, old.games + 1))
    return result


class RatingBook:
    """Reads ratings and the leaderboards (writes happen only in the consumer's Lua script). A player is a
    (tenant, player id) pair: each tenant has its own ratings and its own leaderboard."""

    def __init__(self, store: Redis) -> None:
        self.store = store

    def get(self, tenant: str, player_id: str) -> Rating:
        return self.get_many(tenant, [player_id])[player_id]

    def get_many(self, tenant: str, player_ids: Sequence[str]) -> dict[str, Rating]:
        found = self.get_each([(tenant, pid) for pid in player_ids])
        return {pid: found[(tenant, pid)] for pid in player_ids}

    def get_each(self, players: Sequence[tuple[str, str]]) -> dict[tuple[str, str], Rating]:
        """The ratings of (tenant, player id) pairs, of any tenants, in one round trip."""
        pipe = self.store.client.pipeline(transaction=False)
        for tenant, pid in players:
            pipe.hmget(self.store.keys.rating(tenant, pid), "mu", "sigma", "games")
        out = {}
        for (tenant, pid), (mu, sigma, games) in zip(players, pipe.execute(), strict=True):
            out[(tenant, pid)] = Rating(pid) if mu is None else Rating(pid, float(mu), float(sigma),
                                                                         int(games or 0))
        return out

    def leaderboard(self, tenant: str, limit: int, offset: int) -> dict[str, Any]:
        client, board = self.store.client, self.store.keys.leaderboard(tenant)
        ids = client.zrevrange(board, offset, offset + limit - 1)
        ratings = self.get_many(tenant, ids)
        entries = [{"rank": offset + i + 1, **ratings[pid].to_json()} for i, pid in enumerate(ids)]
        return {"entries": entries, "total": client.zcard(board), "limit": limit, "offset": offset}
