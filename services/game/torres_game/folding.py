"""Loading a game: its immutable facts and its latest folded state, cached per process.

Every part of the service reads games through one :class:`GameStates`, so a state folded by a write is the
state the next read starts from: most requests only fold the events they have not seen.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torres_rules as tr
from torres_online import lifecycle as lc
from torres_service.lru import LockedLru

from . import events as ev
from . import metrics
from .access import GameInfo
from .config import Config
from .errors import GameNotFound, NotFound
from .store.base import EventStore, GameRecord, StoredEvent


@dataclass(frozen=True)
class Folded:
    """A state and its lifecycle with their version and summary, so hot paths never recompute
    ``to_position()``."""

    version: int
    state: tr.State
    life: lc.Lifecycle
    summary: dict[str, Any]

    @classmethod
    def of(cls, version: int, state: tr.State, life: lc.Lifecycle) -> Folded:
        return cls(version, state, life, ev.summary_of(state, life))

    @property
    def to_move(self) -> int | None:
        """The seat to move, None once the game is over."""
        return self.summary["to_move"]

    @property
    def over(self) -> bool:
        return self.life.over or tr.is_over(self.state)


class _StateCache(LockedLru[str, Folded]):
    """Latest folded state per game (LRU): most requests only fold the events they haven't seen."""

    def put(self, game_id: str, folded: Folded) -> None:
        with self._lock:
            old = self._items.get(game_id)
            if old is None or old.version < folded.version:
                self._items[game_id] = folded
                self._items.move_to_end(game_id)
                while len(self._items) > self._size:
                    self._items.popitem(last=False)


class GameStates:
    """The games as this process last folded them: what every command and query starts from."""

    def __init__(self, store: EventStore, config: Config) -> None:
        self.store = store
        self.config = config
        self._states = _StateCache(config.state_cache_size)
        self._infos: dict[str, GameInfo] = {}
        self._infos_lock = threading.Lock()

    def info(self, game_id: str) -> GameInfo:
        """The game's immutable facts (record at creation, seed, creation tokens' hashes), kept once read."""
        info = self._infos.get(game_id)
        if info is not None:
            return info
        record = self.store.get_game(game_id)
        secret = self.store.get_secret(game_id) if record else None
        if record is None or secret is None:
            raise GameNotFound(f"no game {game_id}")
        info = GameInfo(record, secret)
        with self._infos_lock:
            if len(self._infos) > 4 * self.config.state_cache_size:
                self._infos.clear()
            self._infos[game_id] = info
        return info

    def record(self, game_id: str) -> GameRecord:
        """The games row as it is now (status, version, summary): read each time, unlike :meth:`info`."""
        record = self.store.get_game(game_id)
        if record is None:
            raise GameNotFound(f"no game {game_id}")
        return record

    def cached(self, game_id: str) -> Folded | None:
        """The fold this process holds, which may be behind the store: for a caller that checks the version."""
        return self._states.get(game_id)

    def put(self, game_id: str, folded: Folded) -> None:
        """Keep a fold a write produced (an older one than the cached never replaces it)."""
        self._states.put(game_id, folded)

    def current(self, game_id: str) -> Folded:
        """The latest state: the cached fold plus any events other processes appended since."""
        info = self.info(game_id)
        cached = self._states.get(game_id)
        if cached is not None:
            base_version, base = cached.version, (cached.state, cached.life)
        else:
            base_version, base = self._snapshot_base(game_id, None)
        tail = self.store.read(game_id, after=base_version)
        if cached is not None and not tail:
            return cached
        game = self._fold(tail, info.secret.seed, base)
        if game is None:
            raise NotFound(f"game {game_id} has no events")
        folded = Folded.of(tail[-1].version if tail else base_version, *game)
        self._states.put(game_id, folded)
        return folded

    @staticmethod
    def _fold(
        tail: Sequence[StoredEvent], seed: int, base: tuple[tr.State, lc.Lifecycle] | None
    ) -> tuple[tr.State, lc.Lifecycle] | None:
        with metrics.FOLD_SECONDS.time():
            game = lc.fold_game(tail, seed, base)
        metrics.FOLD_EVENTS.observe(len(tail))
        return game

    def _snapshot_base(
        self, game_id: str, at_most: int | None
    ) -> tuple[int, tuple[tr.State, lc.Lifecycle] | None]:
        """The latest usable snapshot: one that also holds the lifecycle (older ones are folded past)."""
        snapshot = self.store.latest_snapshot(game_id, at_most=at_most)
        if snapshot is None or snapshot.lifecycle is None:
            return 0, None
        return snapshot.version, (tr.from_position(snapshot.position), lc.Lifecycle.from_json(snapshot.lifecycle))

    def state_at(self, game_id: str, version: int | None = None) -> tuple[int, tr.State]:
        """The state after ``version`` (default: the latest): cache or snapshot, plus a tail fold."""
        folded = self.folded_at(game_id, version)
        return folded.version, folded.state

    def folded_at(self, game_id: str, version: int | None = None) -> Folded:
        """State and lifecycle after ``version`` (default: the latest)."""
        if version is None:
            return self.current(game_id)
        info = self.info(game_id)
        cached = self._states.get(game_id)
        base: tuple[tr.State, lc.Lifecycle] | None
        if cached is not None and cached.version <= version:
            base_version, base = cached.version, (cached.state, cached.life)
        else:
            base_version, base = self._snapshot_base(game_id, version)
        if base is not None and version == base_version:
            return Folded.of(base_version, *base)
        tail = self.store.read(game_id, after=base_version, up_to=version)
        game = self._fold(tail, info.secret.seed, base)
        last = tail[-1].version if tail else base_version
        if game is None or last != version:
            raise NotFound(f"game {game_id} has no version {version}")
        return Folded.of(last, *game)
