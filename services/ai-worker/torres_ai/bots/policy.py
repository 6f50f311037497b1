"""Decisions outside a turn (setup, keeping a card, moving the king) and the planning bots' shared loop."""

from __future__ import annotations

import random

import torres_rules as tr

from .base import Action, Budget, LocalPlanMemory, PlanMemory, View, view_key
from .determinize import sample_state
from .evaluation import evaluate

# Which card to keep when buying (RULES 9): more AP first, then the moves that gain levels.
CARD_PREFERENCE = (
    "seven_ap",
    "six_ap",
    "climb_two",
    "castle_gate",
    "jump",
    "extra_block",
    "block_under_knight",
    "diagonal",
    "reposition_knight",
    "move_block",
)


def keep_choice(state: tr.State, legal: list[int]) -> int:
    """The preferred card, the unkept cards to the bottom (they are the less wanted ones)."""
    def rank(code: int) -> tuple[int, int]:
        action = tr.decode(state, code)
        return CARD_PREFERENCE.index(action["card"]), 0 if action.get("rest") == "bottom" else 1

    return min(legal, key=rank)


def one_ply(state: tr.State, legal: list[int], seat: int, rng: random.Random) -> int:
    """The action (code) with the best evaluation right after it (setup, king move); ties at random."""
    if state.stage == "keep_card":
        return keep_choice(state, legal)
    return max(legal, key=lambda a: (evaluate(tr.apply_code(state, a), seat), rng.random()))


class PlanningBot:
    """Shared loop of the planning bots: replay the turn's plan if this view was foreseen, else plan.

    Subclasses implement :meth:`plan_turn`, returning the turn's actions (codes) from the current position;
    only the action played and the plan kept in memory are decoded to wire form.
    """

    name = "planning"

    def __init__(self, memory: PlanMemory | None = None) -> None:
        self.memory: PlanMemory = memory or LocalPlanMemory()
        self.last_planned = False  # True when the last decision ran a search (for latency statistics)

    def decide(self, view: View, rng: random.Random, budget: Budget) -> Action:
        self.last_planned = False
        seat: int = view["seat"]
        state = sample_state(view, rng)
        legal = tr.legal_codes(state)
        if len(legal) == 1:
            return tr.decode(state, legal[0])
        key = view_key(view)
        planned = self.memory.get(key)
        if planned is not None and planned in tr.legal_actions(state):
            return planned
        if state.stage != "turn":
            return tr.decode(state, one_ply(state, legal, seat, rng))
        self.last_planned = True
        actions = self.plan_turn(view, state, rng, budget, budget.deadline())
        if not actions or actions[0] not in legal:  # never happens; a bot must never stall a game
            return tr.decode(state, rng.choice(legal))
        self.remember(state, seat, actions)
        return tr.decode(state, actions[0])

    def plan_turn(
        self, view: View, state: tr.State, rng: random.Random, budget: Budget, deadline: float
    ) -> list[int]:
        raise NotImplementedError

    def remember(self, state: tr.State, seat: int, actions: list[int]) -> None:
        """Store the plan under the view the seat will see before each later action of it.

        The seat's own actions are deterministic and the views hide the sampled parts, so the view
        after each planned step on the sample is exactly the view the real game will show.
        """
        items: dict[str, Action] = {}
        for index, action in enumerate(actions[:-1]):
            state = tr.apply_code(state, action)
            if state.stage != "turn" or state.to_move != seat:
                break
            items[view_key(tr.view(state, seat))] = tr.decode(state, actions[index + 1])
        if items:
            self.memory.put_many(items)

