"""The matchmaker loop: hold some pools, read their queues, form groups, claim them, create the games.

**One game per group, whatever fails.** A claim gives the group an id and stores its seating with its
tickets (one Lua script, all or nothing). The game's ``Idempotency-Key`` is derived from that id, so
every attempt to place the group — this matcher retrying after a timeout, another taking over after a
crash or a stall, a late answer arriving after a takeover — asks the game service for the *same* game,
and whoever confirms first records it (confirming is idempotent). A group whose creation failed stays
claimed and is due again after a back-off; its tickets are never re-queued under a new group while a
creation may still be in flight, which is how a second game used to arise. The only ways a group ends
without its game are a 4xx from the game service (no game was or will be created) and a cancel of a
ticket stuck in a stalled group: then the group is *dissolved*, and before its other tickets go back to
matching the matcher asks for the group's game once more — so any creation still in flight can only
replay it — and aborts it through the game service's abandon. No active game is left without players.

**Tenants.** Within a pool, tickets only meet tickets of their scope (their tenant's, or the shared pool's): the
matcher forms groups per scope, and the claim script refuses a group whose scopes differ anyway. Each human
seat of a game's record names its player's tenant, so the ratings consumer updates that tenant's ratings.

**Partitioned.** Tickets only meet tickets of their pool, and each pool has a lease in Redis: every
matcher holds about ``pools / live matchers`` of them (live = heartbeat in the last few lease periods),
so N matchers divide the work instead of racing for it. Leases are for throughput only: every state
change is still an all-or-nothing script, so two matchers that briefly both think they hold a pool can
only waste a claim.
"""

from __future__ import annotations

import json
import logging
import math
import os
import random
import socket
import threading
import time
import uuid
import zlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import unquote

from torres_service.principals import DEFAULT_TENANT

from . import metrics
from .config import Config
from .errors import GameRefused, GameServiceError
from .game_client import CreatedGame, GameCreator
from .grouping import Candidate, Group, Window, form_groups
from .ratings import ai_level_for
from .store import Pool, Redis, tenant_segment
from .tickets import TicketService

log = logging.getLogger(__name__)
GAME_RECORD_TTL = 14 * 24 * 3600  # the ratings consumer needs the seats until the game ends
GROUP_TTL = 24 * 3600  # a claimed group's record; placed or released ones keep it for result_ttl
ORPHAN_RETRY = 60.0  # seconds between attempts to abandon an orphaned game the game service refused to end


@dataclass
class TickReport:
    pools: int = 0
    expired: int = 0
    resumed: int = 0  # groups due again (a retry, or a takeover of another matcher's group)
    groups: int = 0
    claimed: int = 0
    created: int = 0
    failed: int = 0
    conflicts: int = 0
    orphans: int = 0
    backing_off: bool = False
    games: list[tuple[str, Group]] = field(default_factory=list)

    @property
    def busy(self) -> bool:
        return self.claimed > 0 or self.conflicts > 0


@dataclass(frozen=True)
class Claim:
    """A claimed group: what it takes to (re)place it, from the claim or from Redis after a takeover."""

    group_id: str
    ticket_ids: tuple[str, ...]
    players: tuple[str, ...]  # of the tickets, in the same order
    seats: tuple[dict[str, Any], ...]  # the game's seating, as sent to the game service
    group: Group | None = None  # only on the matcher that formed it (for reports)
    tenants: tuple[str, ...] = ()  # the players' tenants, in the same order (as the claim script read them)

    @property
    def request_key(self) -> str:
        return f"mm-group-{self.group_id}"


Unit = tuple[Pool, int]  # (pool, rating band): the unit of work a lease covers


class Leases:
    """Which (pool, rating band) units this matcher works on: about ``units / live matchers`` of them.

    Lease upkeep is batched and paced: every ``lease_seconds / 3`` one heartbeat, one read of the live matchers,
    and one pipeline that renews the held leases and tries the free ones; the ticks in between touch no lease.
    """

    def __init__(self, store: Redis, config: Config, owner: str) -> None:
        self.store = store
        self.config = config
        self.owner = owner
        self.units: list[Unit] = [(p, b) for p in store.keys.pools() for b in range(len(config.band_edges) + 1)]
        start = zlib.crc32(owner.encode()) % len(self.units)  # matchers start looking at different units
        self._order = self.units[start:] + self.units[:start]
        self.held: list[Unit] = []
        self._due = 0.0
        self._scan_due = 0.0
        self._free_since: dict[Unit, float] = {}

    def live_matchers(self) -> int:
        beats = self.store.client.hgetall(self.store.keys.matchers)
        now = time.time()
        live = [name for name, at in beats.items() if now - float(at) < 3 * self.config.lease_seconds]
        gone = [name for name, at in beats.items() if now - float(at) > 20 * self.config.lease_seconds]
        if gone:
            self.store.client.hdel(self.store.keys.matchers, *gone)
        return max(1, len(live))

    def refresh(self) -> list[Unit]:
        """Every ``lease_seconds / 3``: heartbeat, renew the held units, and — while below the target, or once a
        lease period to find units nobody holds — try the others. Between those, nothing (``due`` is False)."""
        now = time.monotonic()
        if now < self._due:
            return self.held
        self._due = now + self.config.lease_seconds / 3
        self.store.client.hset(self.store.keys.matchers, self.owner, time.time())
        target = math.ceil(len(self.units) / self.live_matchers())
        ttl_ms = int(self.config.lease_seconds * 1000)
        scan = len(self.held) < target or now >= self._scan_due
        if scan:
            self._scan_due = now + self.config.lease_seconds
        tried = self._order if scan else self.held
        got = [u for u, ok in zip(tried, self._leases(tried, ttl_ms, "hold"), strict=True) if ok]
        keep = [u for u in got if u in self.held][:target]  # what we held stays ours first
        for u in got:
            if len(keep) >= target:
                break
            if u not in keep:
                keep.append(u)
        extra = [u for u in got if u not in keep]
        # A unit nobody else took for a whole lease period (the count of live matchers is off, or its matcher is
        # stuck in a slow call) is kept beyond the target rather than left to starve.
        for u in list(extra):
            if now - self._free_since.setdefault(u, now) > self.config.lease_seconds:
                keep.append(u)
                extra.remove(u)
        for u in keep:
            self._free_since.pop(u, None)
        self._leases(extra, 1, "drop")
        self.held = sorted(keep, key=self.units.index)
        return self.held

    def drop_all(self) -> None:
        self._leases(self.held, 1, "drop")
        self.held = []
        self._due = 0.0
        self.store.client.hdel(self.store.keys.matchers, self.owner)

    def _leases(self, units: list[Unit], ttl_ms: int, mode: str) -> list[bool]:
        """One lease call per pool (its units' keys share a slot), all in one pipeline."""
        keys = self.store.keys
        pools = list(dict.fromkeys(p for p, _ in units))
        bands = {p: [b for q, b in units if q == p] for p in pools}
        results = self.store.batch([("lease", [keys.lease(p, b) for b in bands[p]], [self.owner, ttl_ms, mode])
                                    for p in pools])
        held = {(p, b): bool(r) for p, rs in zip(pools, results, strict=True) for b, r in zip(bands[p], rs,
                                                                                              strict=True)}
        return [held[u] for u in units]


def tenants_of(segments: str | None, n: int) -> tuple[str, ...]:
    """The tenants of a group's ``n`` players from the claim's comma-separated tenant segments (a group claimed
    before tenants existed has none: the default tenant's)."""
    if not segments:
        return (DEFAULT_TENANT,) * n
    return tuple(unquote(s) for s in segments.split(","))


def bounds(lo: float, hi: float) -> list[str]:
    """A rating range as ZRANGEBYSCORE bounds."""
    return ["-inf" if lo == -math.inf else repr(lo), "+inf" if hi == math.inf else repr(hi)]


def candidates(reply: list[list[Any]], now: float) -> list[Candidate]:
    """The unexpired tickets of a ``snapshot`` reply ({ids, rows}; a row gone meanwhile is None). A row queued
    before tenants existed has no scope field: the default tenant's."""
    out = []
    for tid, row in zip(reply[0], reply[1], strict=True):
        if row is None:
            continue
        player, rating, counts, created, max_wait, expires, *scope = row.split("|")
        if float(expires) > now:
            out.append(Candidate(tid, player, float(rating), tuple(int(n) for n in counts.split(",")),
                                 float(created), float(max_wait) if max_wait else None,
                                 scope[0] if scope else tenant_segment(DEFAULT_TENANT)))
    return out


def groups_by_scope(queued: list[Candidate], now: float, window: Window) -> list[Group]:
    """Groups formed within each scope separately: tickets of different tenants' own pools never meet."""
    scopes: dict[str, list[Candidate]] = {}
    for c in queued:
        scopes.setdefault(c.scope, []).append(c)
    return [g for members in scopes.values() for g in form_groups(members, now, window, ai_level_for)]


class Matcher:
    def __init__(self, store: Redis, config: Config, games: GameCreator, *,
                 clock: Callable[[], float] = time.time, rng: random.Random | None = None,
                 callbacks: Any = None) -> None:
        self.store = store
        self.config = config
        self.games = games
        self.clock = clock
        self.rng = rng or random.Random()
        self.callbacks = callbacks
        self.tickets = TicketService(store, config, clock=clock)
        self.window = Window(config.window_base, config.window_growth, config.window_max)
        self.name = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"
        self.leases = Leases(store, config, self.name)
        self._retry_at = 0.0
        self._chores_at = 0.0
        self._retry_delay = config.retry_delay
        self._pool = ThreadPoolExecutor(max(1, config.create_concurrency), thread_name_prefix="mm-create")

    def close(self) -> None:
        self._pool.shutdown(wait=True)
        if self.callbacks is not None:
            self.callbacks.close()  # its attempts in flight end and are recorded
        self.leases.drop_all()

    # -- one pass ---------------------------------------------------------------------------

    def tick(self) -> TickReport:
        report = TickReport()
        units = self.leases.refresh()
        report.pools = len(units)
        due: dict[Pool, list[Claim]] = {}
        if self.clock() >= self._chores_at:  # paced: a sweep every chore_seconds, not every tick
            self._chores_at = self.clock() + self.config.chore_seconds
            for pool in dict.fromkeys(p for p, band in units if band == 0):  # a pool's chores go with its band 0
                due[pool] = self._chores(pool, report)
        report.backing_off = self.clock() < self._retry_at
        if not report.backing_off:
            runs = self.runs(units)
            now = self.clock()
            margin = self.config.band_margin
            keys = self.store.keys
            # Only above: a ticket below ``lo`` could only join groups whose lowest rating is not ours.
            snapshots = self.store.batch([("snapshot", keys.pool_keys(pool), bounds(lo, hi + margin))
                                          for pool, lo, hi in runs])
            for (pool, lo, hi), reply in zip(runs, snapshots, strict=True):
                queued = candidates(reply, now)
                groups = groups_by_scope(queued, now, self.window) if queued else []
                # Margins overlap the neighbouring bands: a group belongs to the band of its lowest rating.
                groups = [g for g in groups if lo <= min(t.rating for t in g.tickets) < hi]
                report.groups += len(groups)
                claimed = self.claim(pool, groups, now)
                report.claimed += len(claimed)
                report.conflicts += len(groups) - len(claimed)
                self.place(pool, due.pop(pool, []) + claimed, report)
        for pool, claims in due.items():
            self.place(pool, claims, report)
        self._back_off(report)
        return report

    def runs(self, units: list[Unit]) -> list[tuple[Pool, float, float]]:
        """The held units as rating ranges per pool: consecutive bands of one pool are read as one range (one
        matcher holding a whole pool reads it once)."""
        edges = (-math.inf, *self.config.band_edges, math.inf)
        out: list[tuple[Pool, float, float]] = []
        last: Unit | None = None
        for pool, band in units:
            if last is not None and last == (pool, band - 1):
                out[-1] = (pool, out[-1][1], edges[band + 1])
            else:
                out.append((pool, edges[band], edges[band + 1]))
            last = (pool, band)
        return out

    def _chores(self, pool: Pool, report: TickReport) -> list[Claim]:
        """Expiry sweep, callbacks, orphans and due groups of one pool: what its band-0 holder does besides
        matching. Returns the groups to place again."""
        report.expired += self.tickets.expire_due(pool)
        if self.callbacks is not None:
            self.callbacks.deliver_due(pool)
        if self.clock() < self._retry_at:
            return []
        self.retry_orphans(pool)
        due = self.take_due_groups(pool)
        report.resumed += len(due)
        return due

    def _back_off(self, report: TickReport) -> None:
        """After a failed creation, pause game creation (doubling) instead of hammering the service."""
        if report.failed:
            self._retry_at = self.clock() + self._retry_delay
            log.warning("game service failing; backing off", extra={
                "failed": report.failed, "retry_in": self._retry_delay})
            self._retry_delay = min(self.config.retry_delay_max, self._retry_delay * 2)
        elif report.created:
            self._retry_delay = self.config.retry_delay

    def claim(self, pool: Pool, groups: list[Group], now: float) -> list[Claim]:
        """Claim every group in one pipeline of Lua calls; each call is all-or-nothing on its own."""
        keys = self.store.keys
        claims, calls = [], []
        for group in groups:
            seats: list[dict[str, Any]] = [{"kind": "human", "player_id": c.player_id} for c in group.tickets]
            seats += [{"kind": "ai", "level": level} for level in group.ai_levels]
            self.rng.shuffle(seats)  # nobody is always first to move
            c = Claim(uuid.uuid4().hex, tuple(t.ticket_id for t in group.tickets),
                      tuple(t.player_id for t in group.tickets), tuple(seats), group)
            claims.append(c)
            calls.append(("claim", [*keys.pool_keys(pool), keys.group(pool, c.group_id),
                                    *(keys.ticket(t) for t in c.ticket_ids)],
                          [repr(now), c.group_id, repr(now + self.config.placement_window), json.dumps(seats),
                           GROUP_TTL, *c.ticket_ids]))
        results = self.store.batch(calls)
        return [replace(c, tenants=tenants_of(r[1], len(c.players)), seats=tuple(json.loads(r[2])))
                for c, r in zip(claims, results, strict=True) if r[0] == 1]

    def take_due_groups(self, pool: Pool, limit: int = 200) -> list[Claim]:
        """Groups due again: failed creations after their back-off, and groups a matcher took but did not
        place within ``Config.placement_window`` (it died, or the game service hangs). Dissolved groups are
        resolved."""
        keys = self.store.keys
        now = self.clock()
        out = []
        for gid in self.store.client.zrangebyscore(keys.claims(pool), "-inf", now, start=0, num=limit):
            taken = self.store.run("takeover", [keys.claims(pool), keys.group(pool, gid)], repr(now), gid,
                                           repr(now + self.config.placement_window))
            if not taken:
                continue
            state, tickets, players, seats, tenants = taken
            c = Claim(gid, tuple(tickets.split(",")), tuple(players.split(",")), tuple(json.loads(seats)),
                      tenants=tenants_of(tenants, len(tickets.split(","))))
            if state == "claimed":
                out.append(c)
            elif state == "dissolved":
                self.resolve_dissolved(pool, c)
            else:
                self.store.client.zrem(keys.claims(pool), gid)
        if out:
            log.warning("placing groups again", extra={"count": len(out)})
        return out

    def place(self, pool: Pool, claims: list[Claim], report: TickReport) -> None:
        """Create the claims' games (in parallel), then record them on their tickets in one pipeline."""
        if not claims:
            return
        created = list(self._pool.map(lambda c: self._create(pool, c), claims))
        done = [(c, g) for c, g in zip(claims, created, strict=True) if isinstance(g, CreatedGame)]
        report.failed += sum(g == "failed" for g in created)
        if done:  # for the ratings consumer; written before confirming, so a confirmed game always has one
            pipe = self.store.client.pipeline(transaction=False)
            for c, g in done:
                pipe.set(self.store.keys.game(g.game_id), self._record(pool, c, g), ex=GAME_RECORD_TTL)
            pipe.execute()
        results = self.store.batch([self._confirm_call(pool, c, g) for c, g in done])
        for (c, g), r in zip(done, results, strict=True):
            if r[0] == 0:  # a cancel dissolved the group while its game was being created
                report.orphans += 1
                self._abort(pool, g.game_id, f"matchmaking group {c.group_id} was dissolved ({r[1]})")
                self._release(pool, c, "dissolved")
                continue
            report.created += r[0] == 1
            if r[0] == 1 and c.group is not None:
                report.games.append((g.game_id, c.group))
                metrics.placed(c.group.tickets, c.group.players, self.clock())
            if r[0] == 1 and log.isEnabledFor(logging.INFO):
                log.info("game created", extra={"game_id": g.game_id, "group_id": c.group_id,
                                                "humans": len(c.ticket_ids), "players": len(c.seats)})

    def _create(self, pool: Pool, c: Claim) -> CreatedGame | str:
        """The group's game, or "failed" (due again after the back-off) or "refused" (group released)."""
        try:
            return self._create_game(pool, c)
        except GameRefused as exc:
            log.error("game service refused a group; tickets re-queued", extra={"error": str(exc),
                                                                                  "group_id": c.group_id})
            self._release(pool, c, "refused")
            return "refused"
        except GameServiceError as exc:
            log.warning("game creation failed; the group stays claimed and is retried", extra={
                "error": str(exc), "group_id": c.group_id})
            self.store.client.zadd(self.store.keys.claims(pool), {c.group_id: self.clock() + self._retry_delay},
                                   xx=True)
            return "failed"

    def _create_game(self, pool: Pool, c: Claim) -> CreatedGame:
        """Try once more at once: if the first answer was lost after the game service committed, the retry
        gets that game back (same key)."""
        seats = [dict(s) for s in c.seats]
        # Whose game it is in the game service: the players' tenant; a shared-pool group's first
        # player's (the others reach it with their seat tokens). Fixed by the claim, so a retry names the same.
        tenant = c.tenants[0] if c.tenants else DEFAULT_TENANT
        try:
            return self.games.create_game(pool[0], pool[1], seats, request_key=c.request_key, tenant=tenant)
        except GameRefused:
            raise
        except GameServiceError as exc:
            log.info("game creation failed; retrying once with the same key", extra={"error": str(exc)})
            return self.games.create_game(pool[0], pool[1], seats, request_key=c.request_key, tenant=tenant)

    @staticmethod
    def _record(pool: Pool, c: Claim, game: CreatedGame) -> str:
        """What the ratings consumer needs of a game: its seats (no tokens), each human's with the tenant whose
        ratings it changes."""
        tenant_of = dict(zip(c.players, c.tenants or (DEFAULT_TENANT,) * len(c.players), strict=True))
        seats = [{k: v for k, v in s.items() if k != "token"} for s in game.seats]
        for seat in seats:
            if seat.get("kind") == "human":
                seat["tenant"] = tenant_of.get(seat["player_id"], DEFAULT_TENANT)
        return json.dumps({"edition": pool[0], "master": pool[1], "seats": seats})

    def _confirm_call(self, pool: Pool, c: Claim, game: CreatedGame) -> tuple[str, list[str], list[Any]]:
        keys = self.store.keys
        by_player = {s["player_id"]: s for s in game.seats if s.get("kind") == "human"}
        argv: list[Any] = [repr(self.clock()), self.config.result_ttl, c.group_id, game.game_id]
        for player in c.players:
            argv += [by_player[player]["seat"], by_player[player]["token"]]
        return ("confirm", [*keys.pool_keys(pool), keys.group(pool, c.group_id),
                            *(keys.ticket(t) for t in c.ticket_ids)], argv)

    def _release(self, pool: Pool, c: Claim, state: str) -> int:
        keys = self.store.keys
        return int(self.store.run("release", [*keys.pool_keys(pool), keys.group(pool, c.group_id),
                                                      *(keys.ticket(t) for t in c.ticket_ids)], c.group_id, state))

    # -- orphans ----------------------------------------------------------------------------

    def resolve_dissolved(self, pool: Pool, c: Claim) -> None:
        """A cancel dissolved this group. Ask for its game once more — after this no creation in flight can
        make a new one, only replay it — abort that game, and re-queue the tickets still held."""
        try:
            game = self._create_game(pool, c)
        except GameRefused:
            self._release(pool, c, "dissolved")  # no game for this key, ever
            return
        except GameServiceError as exc:
            log.warning("cannot resolve a dissolved group yet", extra={"error": str(exc), "group_id": c.group_id})
            self.store.client.zadd(self.store.keys.claims(pool), {c.group_id: self.clock() + self._retry_delay})
            return
        self._abort(pool, game.game_id, f"matchmaking group {c.group_id} was dissolved by a cancel")
        self._release(pool, c, "dissolved")

    def _abort(self, pool: Pool, game_id: str, reason: str) -> None:
        try:
            self.games.abandon_game(game_id, reason)
            log.warning("orphaned game abandoned", extra={"game_id": game_id, "reason": reason})
        except GameServiceError as exc:
            if not (isinstance(exc, GameRefused) and exc.status == 409):  # 409: already over (aborted before)
                log.error("orphaned game could not be abandoned; will retry", extra={
                    "game_id": game_id, "error": str(exc)})
                self.store.client.zadd(self.store.keys.orphans(pool), {game_id: self.clock() + ORPHAN_RETRY})
                return
        self.store.client.zrem(self.store.keys.orphans(pool), game_id)

    def retry_orphans(self, pool: Pool) -> None:
        key = self.store.keys.orphans(pool)
        for game_id in self.store.client.zrangebyscore(key, "-inf", self.clock(), start=0, num=20):
            self._abort(pool, game_id, "orphaned by matchmaking")

    # -- the loop ---------------------------------------------------------------------------

    def run(self, stop: threading.Event) -> None:
        log.info("matcher started", extra={"redis": self.config.redis_url or "embedded", "matcher": self.name})
        while not stop.is_set():
            try:
                report = self.tick()
            except Exception:  # Redis hiccup: keep the loop alive, state is safe in Redis
                log.exception("matcher tick failed")
                stop.wait(1.0)
                continue
            if not report.busy:
                stop.wait(self.config.tick_seconds)
        self.leases.drop_all()
        log.info("matcher stopped")
