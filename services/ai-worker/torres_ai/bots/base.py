"""What every bot shares: the decision signature, budgets and the turn-plan memory.

A bot's only input is a seat's view (``tr.view(state, seat)``): it never receives a State, so it cannot
read another seat's hand or any deck order even by accident. Search bots rebuild full states by sampling
the hidden parts (see :mod:`torres_ai.bots.determinize`).
"""

from __future__ import annotations

import hashlib
import json
import random
import time
from dataclasses import dataclass
from typing import Any, Protocol

from torres_service.lru import LockedLru

View = dict[str, Any]
Action = dict[str, Any]


@dataclass(frozen=True)
class Budget:
    """How much a decision may cost: search iterations and wall-clock seconds, whichever ends first.

    Tests use iteration budgets with a generous time limit, so a decision is a pure function of
    (view, seed); production uses the time limit so a slow machine plays weaker rather than later.
    """

    iterations: int = 64
    seconds: float = 0.5

    def deadline(self) -> float:
        return time.perf_counter() + self.seconds


class Bot(Protocol):
    """``decide(view, rng, budget) -> action``: one legal action for the seat whose view it is."""

    name: str

    def decide(self, view: View, rng: random.Random, budget: Budget) -> Action: ...


def view_key(view: View) -> str:
    """A stable digest of everything the seat sees: two equal views get the same plan."""
    return hashlib.blake2b(json.dumps(view, sort_keys=True, separators=(",", ":")).encode(), digest_size=16).hexdigest()


class PlanMemory(Protocol):
    """Where a planned turn waits for its next decision: view digest -> the action planned for it.

    A whole turn is planned once, at its first decision; each later decision of that turn finds its
    view here and replays the plan. A view the plan did not foresee (a drawn card, an opponent's
    king move) has no entry, which makes the bot re-plan. In-process bots use :class:`LocalPlanMemory`;
    Celery workers share one in Redis so any worker process can continue a turn another one planned.
    """

    def get(self, key: str) -> Action | None: ...

    def put_many(self, items: dict[str, Action]) -> None: ...


class LocalPlanMemory(LockedLru[str, Action]):
    """A bounded, thread-safe LRU dictionary."""

    def __init__(self, size: int = 4096) -> None:
        super().__init__(size)

    def put_many(self, items: dict[str, Action]) -> None:
        with self._lock:
            self._items.update(items)
            for key in items:
                self._items.move_to_end(key)
            while len(self._items) > self._size:
                self._items.popitem(last=False)
