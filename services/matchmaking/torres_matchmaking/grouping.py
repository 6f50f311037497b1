"""Who plays whom: a pure function from queued tickets (and the time) to groups of seats.

No Redis here, so the policy is easy to test and to benchmark. Tickets are sorted by rating and
cut greedily into runs of consecutive ratings; a run becomes a game when its rating spread fits
every member's window, which widens the longer that member has waited. Larger games are formed
first (a [2, 3, 4] ticket is worth more to a 4-player table than to a 2-player one). Whoever is
left after waiting ``max_wait`` gets AI seats of a level near their rating.

The candidates given are of one scope (the matcher splits a pool's queue by scope first: a tenant's own players,
or the shared pool's). A group never holds one player id twice: within a tenant one live ticket per player
rules that out already, but in the shared pool two tenants may each have an "alice", and a game cannot seat
both under one name.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Candidate:
    ticket_id: str
    player_id: str
    rating: float
    counts: tuple[int, ...]
    created_at: float
    max_wait: float | None  # None: humans only, never AI-filled
    scope: str = "default"  # whom the ticket may meet (store.scope_of)

    def waited(self, now: float) -> float:
        return max(0.0, now - self.created_at)

    def overdue(self, now: float) -> bool:
        return self.max_wait is not None and self.waited(now) >= self.max_wait


@dataclass(frozen=True)
class Window:
    """The acceptable rating spread of a game, for a player who has waited ``waited`` seconds."""

    base: float
    growth: float
    maximum: float

    def at(self, waited: float) -> float:
        return min(self.maximum, self.base + self.growth * waited)


@dataclass(frozen=True)
class Group:
    """One game to create: the human tickets (seat order is decided later) and the AI levels."""

    tickets: tuple[Candidate, ...]
    players: int
    ai_levels: tuple[str, ...] = ()

    @property
    def spread(self) -> float:
        ratings = [c.rating for c in self.tickets]
        return max(ratings) - min(ratings)


def form_groups(candidates: Iterable[Candidate], now: float, window: Window,
                ai_level: Callable[[float], str], sizes: tuple[int, ...] = (4, 3, 2)) -> list[Group]:
    by_rating = sorted(candidates, key=lambda c: c.rating)
    limits = {c.ticket_id: window.at(c.waited(now)) for c in by_rating}
    taken: set[str] = set()
    groups: list[Group] = []
    for n in sizes:
        pool = [c for c in by_rating if n in c.counts and c.ticket_id not in taken]
        i = 0
        while i + n <= len(pool):
            run = pool[i:i + n]
            if run[-1].rating - run[0].rating <= min(limits[c.ticket_id] for c in run) \
                    and len({c.player_id for c in run}) == n:
                groups.append(Group(tuple(run), n))
                taken.update(c.ticket_id for c in run)
                i += n
            else:
                i += 1
    for c in by_rating:
        if c.ticket_id not in taken and c.overdue(now):
            n = min(c.counts)
            groups.append(Group((c,), n, (ai_level(c.rating),) * (n - 1)))
    return groups
