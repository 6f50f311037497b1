"""Plan a whole turn: a beam search over the seat's actions until it ends its turn.

Actions inside a turn are deterministic except buying a card (a draw), so a plan is a sequence of
actions that stops either with ``end_turn`` or right after ``buy_card`` (the bot re-plans once it has
seen the card). Plans are integer action codes (``tr.legal_codes`` / ``tr.apply_code``): the search never
builds a wire dict; the bot decodes only the action it plays.
Orders that reach the same position are merged (States hash by content), and the beam
keeps a small bonus for unspent AP so that set-up moves (a step that enables a climb) survive a round.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass

import torres_rules as tr
from torres_rules import codes

from .evaluation import evaluate

Evaluator = Callable[[tr.State, int], float]
AP_BONUS = 0.6  # beam ordering only: what an unspent AP might still be worth this turn


@dataclass(frozen=True)
class Plan:
    """Actions (codes) from the turn's current position, the position they lead to, and its evaluation."""

    actions: tuple[int, ...]
    final: tr.State
    value: float


def plan_turn(
    state: tr.State,
    seat: int,
    rng: random.Random,
    *,
    width: int = 4,
    keep: int = 1,
    noise: float = 0.0,
    evaluator: Evaluator = evaluate,
    max_expansions: int = 200,
    deadline: float | None = None,
    sample: int | None = None,
) -> list[Plan]:
    """The ``keep`` best distinct plans for ``seat`` (to move in the ``turn`` stage), best first.

    ``noise`` adds uniform jitter to child values, which makes repeated calls sample different good
    plans (the MCTS bot's candidate generator and the rollout policy use it). ``sample`` looks at only that
    many random actions per position: the rollout policy trades precision for speed with it.
    """
    root_value = evaluator(state, seat)
    results: dict[tr.State, Plan] = {state: Plan((), state, root_value)}
    frontier: list[tuple[float, tr.State, tuple[int, ...]]] = [(root_value, state, ())]
    seen: set[tr.State] = {state}
    expansions = 0
    while frontier and expansions < max_expansions and (deadline is None or time.perf_counter() < deadline):
        children: list[tuple[float, tr.State, tuple[int, ...]]] = []
        for _, current, actions in frontier:
            expansions += 1
            legal = tr.legal_codes(current)
            if sample is not None and len(legal) > sample:
                legal = rng.sample(legal, sample)
            for action in legal:
                if is_end_turn(action):
                    continue
                child = tr.apply_code(current, action)
                if child in seen:
                    continue
                seen.add(child)
                value = evaluator(child, seat)
                if noise:
                    value += noise * rng.random()
                path = (*actions, action)
                results[child] = Plan(path, child, value)
                if action == codes.BUY_CARD or child.stage != "turn" or child.to_move != seat:
                    continue  # a draw (or anything unforeseen) ends what can be planned
                children.append((value + AP_BONUS * (child.ap - child.ap_spent), child, path))
        rng.shuffle(children)  # ties broken at random, then stable sort by value
        children.sort(key=lambda c: c[0], reverse=True)
        frontier = children[:width]
    ranked = sorted(results.values(), key=lambda p: p.value, reverse=True)
    return ranked[:keep]


def is_end_turn(code: int) -> bool:
    return codes.END_TURN <= code < codes.MOVE_KING_STAY


def finish(plan: Plan, rng: random.Random, evaluator: Evaluator = evaluate, seat: int | None = None) -> list[int]:
    """The plan's actions (codes), closed with an ``end_turn`` unless it stops at a draw."""
    actions = list(plan.actions)
    final = plan.final
    if final.stage == "turn" and (seat is None or final.to_move == seat):
        ends = [a for a in tr.legal_codes(final) if is_end_turn(a)]
        if ends:
            actions.append(ends[0] if len(ends) == 1 else _best_end(final, ends, rng, evaluator))
    return actions


def _best_end(state: tr.State, ends: list[int], rng: random.Random, evaluator: Evaluator) -> int:
    """Which stack to use up when nothing was built: keep the stacks that are left high."""
    seat = state.to_move
    assert seat is not None
    return max(ends, key=lambda a: (sum(tr.apply_code(state, a).stacks[seat]), rng.random()))
