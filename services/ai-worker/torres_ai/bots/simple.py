"""The ``random`` and ``greedy`` bots."""

from __future__ import annotations

import random

import torres_rules as tr

from .base import Action, Budget, PlanMemory, View
from .determinize import sample_state
from .planner import finish, plan_turn
from .policy import PlanningBot


class RandomBot:
    """A uniformly random legal action (the legal set depends only on what the seat sees)."""

    name = "random"

    def decide(self, view: View, rng: random.Random, budget: Budget) -> Action:
        state = sample_state(view, rng)
        return tr.decode(state, rng.choice(tr.legal_codes(state)))


class GreedyBot(PlanningBot):
    """Plans the turn that maximises the evaluation at its end (beam search, no look-ahead past it)."""

    name = "greedy"

    def __init__(self, memory: PlanMemory | None = None, width: int = 3, max_expansions: int = 60) -> None:
        super().__init__(memory)
        self.width = width
        self.max_expansions = max_expansions

    def plan_turn(
        self, view: View, state: tr.State, rng: random.Random, budget: Budget, deadline: float
    ) -> list[int]:
        seat = view["seat"]
        best = plan_turn(state, seat, rng, width=self.width, max_expansions=self.max_expansions, deadline=deadline)
        return finish(best[0], rng, seat=seat)
