"""The matchmaker loop: read the queues, form groups, claim them atomically, create the games.

Safety does not depend on this process being alone: a group is claimed by one Lua script that
fails unless every ticket is still queued, so matchers racing over the same snapshot can only
waste a claim, never double-place a ticket. A claimed group whose game cannot be created is
released by another script (tickets back in their queues, unharmed) and retried after a back-off;
claims left behind by a crashed matcher are released after ``claim_timeout``.
"""

from __future__ import annotations

import json
import logging
import os
import random
import socket
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from . import metrics
from .config import Config
from .errors import GameServiceError
from .game_client import CreatedGame, GameCreator
from .grouping import Candidate, Group, Window, form_groups
from .ratings import ai_level_for
from .store import Redis
from .tickets import TicketService

log = logging.getLogger(__name__)
GAME_RECORD_TTL = 14 * 24 * 3600  # the ratings consumer needs the seats until the game ends


@dataclass
class TickReport:
    expired: int = 0
    recovered: int = 0
    groups: int = 0
    claimed: int = 0
    created: int = 0
    failed: int = 0
    conflicts: int = 0
    backing_off: bool = False
    games: list[tuple[str, Group]] = field(default_factory=list)

    @property
    def busy(self) -> bool:
        return self.claimed > 0 or self.conflicts > 0


@dataclass(frozen=True)
class Placement:
    claim_id: str
    group: Group
    game: CreatedGame


class Matcher:
    def __init__(self, store: Redis, config: Config, games: GameCreator, *,
                 clock: Callable[[], float] = time.time, rng: random.Random | None = None) -> None:
        self.store = store
        self.config = config
        self.games = games
        self.clock = clock
        self.rng = rng or random.Random()
        self.tickets = TicketService(store, config, clock=clock)
        self.window = Window(config.window_base, config.window_growth, config.window_max)
        self._retry_at = 0.0
        self._retry_delay = config.retry_delay
        self._pool = ThreadPoolExecutor(max(1, config.create_concurrency), thread_name_prefix="mm-create")

    def close(self) -> None:
        self._pool.shutdown(wait=True)

    # -- one pass ---------------------------------------------------------------------------

    def tick(self) -> TickReport:
        report = TickReport(expired=self.tickets.expire_due(), recovered=self.recover_stale_claims())
        now = self.clock()
        if now < self._retry_at:
            report.backing_off = True
            return report
        for edition, master in self.store.keys.pools():
            candidates = self.load_pool(edition, master)
            if not candidates:
                continue
            groups = form_groups(candidates, now, self.window, ai_level_for)
            report.groups += len(groups)
            claimed = self.claim(groups, now)
            report.claimed += len(claimed)
            report.conflicts += len(groups) - len(claimed)
            created = list(self._pool.map(lambda item, e=edition, m=master: self.create(*item, e, m), claimed))
            placed = self.confirm([c for c in created if c is not None], edition, master)
            report.failed += sum(c is None for c in created)
            report.created += len(placed)
            report.games += placed
        self._back_off(report)
        return report

    def _back_off(self, report: TickReport) -> None:
        """After a failed creation, pause game creation (doubling) instead of hammering the service."""
        if report.failed:
            self._retry_at = self.clock() + self._retry_delay
            log.warning("game service failing; backing off", extra={
                "failed": report.failed, "retry_in": self._retry_delay})
            self._retry_delay = min(self.config.retry_delay_max, self._retry_delay * 2)
        elif report.created:
            self._retry_delay = self.config.retry_delay

    def load_pool(self, edition: str, master: bool) -> list[Candidate]:
        """Every queued, unexpired ticket of one (edition, master) pool, from all its queues (one Lua call)."""
        rows = self.store.scripts.run("snapshot", repr(self.clock()), edition, int(master))
        out = []
        for row in rows:
            tid, player, rating, counts, created, max_wait = row.split("|")
            out.append(Candidate(tid, player, float(rating), tuple(int(n) for n in counts.split(",")),
                                 float(created), float(max_wait) if max_wait else None))
        return out

    def claim(self, groups: list[Group], now: float) -> list[tuple[str, Group]]:
        """Claim every group in one pipeline of Lua calls; each call is all-or-nothing on its own."""
        if not groups:
            return []
        pipe = self.store.client.pipeline(transaction=False)
        claim_ids = [uuid.uuid4().hex for _ in groups]
        for claim_id, group in zip(claim_ids, groups, strict=True):
            self.store.scripts.run("claim", repr(now), claim_id, *(c.ticket_id for c in group.tickets), client=pipe)
        results = pipe.execute()
        return [(cid, g) for cid, g, r in zip(claim_ids, groups, results, strict=True) if r[0] == 1]

    def create(self, claim_id: str, group: Group, edition: str, master: bool) -> Placement | None:
        """Create the game of a claimed group, or release the group (back to its queues) and return None."""
        seats: list[dict[str, Any]] = [{"kind": "human", "player_id": c.player_id} for c in group.tickets]
        seats += [{"kind": "ai", "level": level} for level in group.ai_levels]
        self.rng.shuffle(seats)  # nobody is always first to move
        ids = [c.ticket_id for c in group.tickets]
        try:
            return Placement(claim_id, group, self._create_game(claim_id, edition, master, seats))
        except GameServiceError as exc:
            released = self.store.scripts.run("release", claim_id, *ids)
            log.warning("game creation failed; tickets re-queued", extra={"error": str(exc), "released": released})
        except Exception:
            self.store.scripts.run("release", claim_id, *ids)
            log.exception("unexpected error creating a game; tickets re-queued")
        return None

    def _create_game(self, claim_id: str, edition: str, master: bool, seats: list[dict[str, Any]]) -> CreatedGame:
        """Create the claim's game, keyed by the claim id, and try once more before giving up: if the first
        answer was lost after the game service committed, the retry gets that game back instead of leaving it
        orphaned while the tickets go round again."""
        try:
            return self.games.create_game(edition, master, seats, request_key=claim_id)
        except GameServiceError as exc:
            log.info("game creation failed; retrying once with the same key", extra={"error": str(exc)})
            return self.games.create_game(edition, master, seats, request_key=claim_id)

    def confirm(self, placements: list[Placement], edition: str, master: bool) -> list[tuple[str, Group]]:
        """Record each created game on its tickets (one Lua call per game, all in one pipeline)."""
        if not placements:
            return []
        pipe = self.store.client.pipeline(transaction=False)
        now = repr(self.clock())
        for p in placements:
            by_player = {s["player_id"]: s for s in p.game.seats if s.get("kind") == "human"}
            argv: list[Any] = []
            for c in p.group.tickets:
                seat = by_player[c.player_id]
                argv += [c.ticket_id, seat["seat"], seat["token"]]
            record = json.dumps({"edition": edition, "master": master,
                                 "seats": [{k: v for k, v in s.items() if k != "token"} for s in p.game.seats]})
            self.store.scripts.run("confirm", now, self.config.result_ttl, p.claim_id, p.game.game_id, record,
                                   GAME_RECORD_TTL, *argv, client=pipe)
        placed = []
        for p, ok in zip(placements, pipe.execute(), strict=True):
            if ok[0] != 1:  # only after this matcher stalled past claim_timeout (see module docstring)
                log.error("claim lost before confirmation; game orphaned",
                          extra={"game_id": p.game.game_id, "ticket_id": ok[1]})
                continue
            placed.append((p.game.game_id, p.group))
            metrics.placed(p.group.tickets, p.group.players, float(now))
            if log.isEnabledFor(logging.INFO):
                log.info("game created", extra={"game_id": p.game.game_id, "players": p.group.players,
                                                "humans": len(p.group.tickets), "ai": len(p.group.ai_levels),
                                                "spread": round(p.group.spread, 3)})
        return placed

    def recover_stale_claims(self) -> int:
        cutoff = self.clock() - self.config.claim_timeout
        ids = self.store.client.zrangebyscore(self.store.keys.claims, "-inf", cutoff, start=0, num=1000)
        if not ids:
            return 0
        n = int(self.store.scripts.run("release", "*", *ids))
        if n:
            log.warning("re-queued tickets of stale claims", extra={"count": n})
        return n

    # -- the loop ---------------------------------------------------------------------------

    def heartbeat(self) -> None:
        """Announce this matcher (``mm:matchers``: name → last tick), for operators and tests."""
        self.store.client.hset(self.store.keys.matchers, f"{socket.gethostname()}:{os.getpid()}", self.clock())

    def run(self, stop: threading.Event) -> None:
        log.info("matcher started", extra={"redis": self.config.redis_url or "embedded"})
        while not stop.is_set():
            try:
                self.heartbeat()
                report = self.tick()
            except Exception:  # Redis hiccup: keep the loop alive, state is safe in Redis
                log.exception("matcher tick failed")
                stop.wait(1.0)
                continue
            if not report.busy:
                stop.wait(self.config.tick_seconds)
        log.info("matcher stopped")
