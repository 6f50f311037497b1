"""The ratings consumer: reads ``game_ended`` from the game service's notification log.

Its position in the log, the set of games already rated and the new ratings are written by one
Lua script, which also compares the stored position with the one this consumer started from.
So a crash between reading and writing only means re-reading, a restart resumes where the last
write left off, and two consumers running at once cannot both apply the same game.
"""

from __future__ import annotations

import json
import logging
import threading
from typing import Any, Protocol

from torres_service.principals import DEFAULT_TENANT

from . import metrics
from .errors import GameServiceError
from .ratings import RatingBook, rate_game
from .store import Redis

log = logging.getLogger(__name__)


class NotificationSource(Protocol):
    def notifications(self, after: int, limit: int = 200) -> dict[str, Any]: ...


class RatingConsumer:
    def __init__(self, store: Redis, source: NotificationSource, page_size: int = 200) -> None:
        self.store = store
        self.source = source
        self.book = RatingBook(store)
        self.page_size = page_size

    def _keys(self, *players: tuple[str, str]) -> list[str]:
        """The script's keys: position, rated games, then each (tenant, player)'s rating and its tenant's board."""
        keys = self.store.keys
        return [keys.ratings_position, keys.rated_games,
                *(k for tenant, pid in players for k in (keys.rating(tenant, pid), keys.leaderboard(tenant)))]

    def position(self) -> int:
        return int(self.store.client.get(self.store.keys.ratings_position) or 0)

    def poll_once(self) -> tuple[int, int]:
        """Process one page of the log; returns (games rated, notifications read)."""
        position = self.position()
        page = self.source.notifications(after=position, limit=self.page_size)
        read = len(page["notifications"])
        rated = 0
        for note in page["notifications"]:
            if note["type"] != "game_ended":
                continue
            outcome = self._apply(position, note)
            if outcome is None:
                return rated, read  # another consumer moved the position: start over from the new one
            rated += outcome
            position = note["position"]
        end = int(page.get("next_after", position))
        if end > position:
            self.store.run("apply_rating", self._keys(), position, end, "")
        return rated, read

    def drain(self) -> int:
        """Poll until the log is exhausted; returns the games rated."""
        total = 0
        while True:
            rated, read = self.poll_once()
            total += rated
            if read == 0:
                return total

    def _apply(self, position: int, note: dict[str, Any]) -> int | None:
        game_id = note["game_id"]
        record = self.store.client.get(self.store.keys.game(game_id))
        argv: list[Any] = [position, note["position"], game_id]
        players: list[tuple[str, str]] = []
        payload = note["payload"]
        # Only matchmade games are rated, and not one aborted before anybody moved ("rated": false). A game
        # ended early ranks as its result says (forfeited seats last: "ranks").
        rated = record is not None and payload.get("rated", True)
        if rated:
            seats = json.loads(record)["seats"]
            # The matcher recorded each human's tenant (a record from before tenants: the default tenant's).
            # Player ids are distinct within a game, even in the shared pool (grouping.form_groups).
            tenant_of = {s["player_id"]: s.get("tenant", DEFAULT_TENANT) for s in seats if s["kind"] == "human"}
            current = self.book.get_each([(t, pid) for pid, t in tenant_of.items()])
            for r in rate_game(seats, {pid: current[(t, pid)] for pid, t in tenant_of.items()}, payload["scores"],
                               payload.get("winner"), ranks=payload.get("ranks")):
                argv += [r.player_id, repr(r.mu), repr(r.sigma), repr(r.ordinal)]
                players.append((tenant_of[r.player_id], r.player_id))
        else:
            argv[2] = ""
        result = self.store.run("apply_rating", self._keys(*players), *argv)
        if result[0] == 0:
            log.info("ratings position moved by another consumer", extra={"stored": result[1]})
            return None
        applied = int(result[0] == 1 and rated)
        if applied:
            metrics.GAMES_RATED.inc()
            metrics.RATING_UPDATES.inc((len(argv) - 3) // 4)
            log.info("ratings updated", extra={"game_id": game_id, "position": note["position"]})
        return applied

    def run(self, stop: threading.Event, interval: float) -> None:
        while not stop.is_set():
            try:
                busy = self.poll_once()[1] >= self.page_size
            except GameServiceError as exc:
                log.warning("notification log unavailable", extra={"error": str(exc)})
                busy = False
            except Exception:
                log.exception("ratings consumer failed")
                busy = False
            if not busy:
                stop.wait(interval)
