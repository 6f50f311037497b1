"""``mcts``: determinized Monte-Carlo search over whole-turn plans (UCT at the turn level).

Why turn plans and not single actions: a turn is 5-7 AP of deterministic actions, so searching action by
action spends the budget re-discovering the same turn at every AP. Instead, at the first decision of a
turn we generate candidate plans with the greedy beam (the best plan of each kind: build and climb, place
a knight, buy or play a card ...), then treat them as arms of a UCB1 bandit. One iteration samples a
determinization of the hidden cards from the seat's view, plays the arm's plan, lets every opponent answer
with the rollout policy (a narrow greedy turn plan) until it is our turn again -- crossing a phase scoring
if one falls in between -- and scores the result with the static evaluation. The arm with the best mean is
played and the rest of its plan is replayed from memory on the turn's later decisions, so the expensive
search runs about once per turn.

Why these defaults (the matches that decided them are in docs/ai.md, "How hard got there"): noisy or sampled
rollout replies and a second own turn in the rollout made the bot no better than greedy, while a deterministic
greedy reply, i.e. "my turn, then the opponent's best answer", beat it clearly. Each is a constructor argument
for further tuning.
"""

from __future__ import annotations

import math
import random
import time

import torres_rules as tr

from .base import Budget, PlanMemory, View
from .determinize import sample_state
from .evaluation import evaluate
from .planner import Plan, finish, plan_turn
from .policy import PlanningBot, keep_choice, one_ply

EXPLORATION = 6.0  # UCB1 constant in evaluation points (values spread over roughly +-20 per turn)


class MctsBot(PlanningBot):
    name = "mcts"

    def __init__(
        self,
        memory: PlanMemory | None = None,
        candidates: int = 6,
        width: int = 4,
        max_expansions: int = 80,
        rollout_expansions: int = 7,
        own_reply: bool = False,
        rollout_sample: int | None = None,
        rollout_noise: float = 0.0,
    ) -> None:
        super().__init__(memory)
        self.candidates = candidates
        self.width = width
        self.max_expansions = max_expansions
        self.rollout_expansions = rollout_expansions
        self.own_reply = own_reply
        self.rollout_sample = rollout_sample
        self.rollout_noise = rollout_noise
        self.last_iterations = 0

    def plan_turn(
        self, view: View, state: tr.State, rng: random.Random, budget: Budget, deadline: float
    ) -> list[int]:
        arms = self.arms(view, state, rng, budget)
        self.last_iterations = 0
        if len(arms) == 1:
            return arms[0]
        visits, totals = self.search(view, arms, rng, budget.iterations, deadline)
        return arms[best_arm(visits, totals)]

    def arms(self, view: View, state: tr.State, rng: random.Random, budget: Budget) -> list[list[int]]:
        """The bandit's arms: the beam's best plan of each kind from ``state`` (a sample of ``view``), finished."""
        seat: int = view["seat"]
        # Candidate generation gets at most a third of the time; the rest goes to rollouts.
        gen_deadline = time.perf_counter() + budget.seconds / 3
        plans = plan_turn(state, seat, rng, width=self.width, keep=self.candidates * 8,
                          max_expansions=self.max_expansions, deadline=gen_deadline)
        return _distinct([finish(p, rng, seat=seat) for p in diverse(plans, self.candidates)])

    def search(
        self, view: View, arms: list[list[int]], rng: random.Random, iterations: int, deadline: float
    ) -> tuple[list[int], list[float]]:
        """UCB1 over ``arms`` for at most ``iterations`` simulations or until ``deadline``: each arm's visits and
        summed value. Independent searches of the same arms add up (root parallelisation): summing their visits
        and values and taking :func:`best_arm` of the sums is how several short searches make one long one."""
        seat: int = view["seat"]
        visits = [0] * len(arms)
        totals = [0.0] * len(arms)
        seeds: list[int] = []
        started = time.perf_counter()
        for iteration in range(iterations):
            now = time.perf_counter()
            # Stop when the next iteration, at the average cost so far, would overrun the deadline.
            if now >= deadline or (iteration and now + (now - started) / iteration > deadline):
                break
            if iteration < len(arms):
                arm = iteration
            else:
                log_n = math.log(iteration)
                arm = max(
                    range(len(arms)),
                    key=lambda i: totals[i] / visits[i] + EXPLORATION * math.sqrt(log_n / visits[i]),
                )
            # Common random numbers: the k-th visit of every arm meets the same determinization and the
            # same opponent noise, so arms are compared on equal luck and few samples separate them.
            while len(seeds) <= visits[arm]:
                seeds.append(rng.getrandbits(64))
            value = self.simulate(view, arms[arm], seat, random.Random(seeds[visits[arm]]), deadline)
            if value is None:  # ran out of time mid-simulation: the partial result is not a sample
                break
            visits[arm] += 1
            totals[arm] += value
            self.last_iterations = iteration + 1
        return visits, totals

    def simulate(
        self, view: View, actions: list[int], seat: int, rng: random.Random, deadline: float | None = None
    ) -> float | None:
        """One determinization: our plan, every opponent's reply, then (``own_reply``) our next turn,
        evaluated for ``seat``; None when the deadline passed before the end."""
        state = sample_state(view, rng)
        for action in actions:
            state = tr.apply_code(state, action)
        state = self.until_turn_of(state, seat, rng, deadline)
        if self.own_reply and state is not None and state.stage == "turn":
            state = self.until_turn_of(self.rollout_step(state, rng), seat, rng, deadline)
        return None if state is None else evaluate(state, seat)

    def until_turn_of(
        self, state: tr.State, seat: int, rng: random.Random, deadline: float | None
    ) -> tr.State | None:
        guard = 0
        while state.stage != "over" and not (state.to_move == seat and state.stage == "turn") and guard < 64:
            if deadline is not None and time.perf_counter() > deadline:
                return None
            state = self.rollout_step(state, rng)
            guard += 1
        return state

    def rollout_step(self, state: tr.State, rng: random.Random) -> tr.State:
        """The cheap policy: a narrow greedy plan for a turn, a one-ply choice elsewhere."""
        mover = state.to_move
        assert mover is not None
        if state.stage == "turn":
            plan = plan_turn(state, mover, rng, width=1, noise=self.rollout_noise,
                             max_expansions=self.rollout_expansions, sample=self.rollout_sample)[0]
            for action in finish(plan, rng, seat=mover):
                state = tr.apply_code(state, action)
            return state
        legal = tr.legal_codes(state)
        if state.stage == "keep_card":
            return tr.apply_code(state, keep_choice(state, legal))
        return tr.apply_code(state, one_ply(state, legal, mover, rng))


def best_arm(visits: list[int], totals: list[float]) -> int:
    """The arm with the best mean value (more visits break a tie); the first arm when none was tried."""
    tried = [i for i in range(len(visits)) if visits[i]]
    if not tried:
        return 0
    return max(tried, key=lambda i: (totals[i] / visits[i], visits[i]))


def diverse(plans: list[Plan], count: int) -> list[Plan]:
    """Up to ``count`` plans that differ in kind, best first.

    The beam's top plans are mostly one idea in different orders (build here then there); the search only
    pays off when the arms are real alternatives. So we take the best plan of each mix of action types
    (build and climb; place a knight; buy a card; play a card ...) before filling up by value.
    """
    chosen: list[Plan] = []
    kinds: set[frozenset[str]] = set()
    for plan in plans:
        kind = frozenset(tr.action_type(a) for a in plan.actions)
        if kind not in kinds:
            kinds.add(kind)
            chosen.append(plan)
        if len(chosen) == count:
            return chosen
    rest = [p for p in plans if all(p is not c for c in chosen)]
    return chosen + rest[: count - len(chosen)]


def _distinct(arms: list[list[int]]) -> list[list[int]]:
    out: list[list[int]] = []
    for arm in arms:
        if arm and arm not in out:
            out.append(arm)
    return out


__all__ = ["MctsBot", "Plan", "best_arm"]
