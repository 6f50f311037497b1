"""OpenSpiel's search bots behind our bot interface (``decide(view, rng, budget) -> action``), for tournaments.

Like our bots, they get only a seat's view. The root of their search is a full state sampled from that view
(``torres_ai.bots.determinize``), so they can never read a real hidden card:

* ``ismcts``: ``open_spiel.python.algorithms.ismcts.ISMCTSBot`` with a random-rollout evaluator (one rollout
  per simulation), UCT (c = 2), unlimited world samples, most-visited final action. Every simulation
  resamples a world from the seat's information state through ``TorresState.resample_from_infostate``.
* ``ismcts-eval``: the same ISMCTS with our static evaluation (``torres_ai.bots.evaluation``) at the leaves
  instead of a random rollout, squashed to a utility in (−1, 1) by tanh(value / 30). Not an outside
  yardstick any more: it tells OpenSpiel's action-level search apart from the random rollouts.
* ``os-mcts``: ``open_spiel.python.algorithms.mcts.MCTSBot`` (UCT, c = 2, random rollouts, MCTS-Solver) on
  one world sampled from the view per decision ("determinized MCTS"; OpenSpiel's MCTS has no notion of hidden
  information, so searching the sample is the only way it can play without seeing the real cards).

Budgets: ``budget.seconds`` of wall clock per decision, like ours; ``budget.iterations`` caps the simulations
only where the caller sets it (``iterations=0`` means no cap). A decision with one legal action costs nothing.
OpenSpiel checks no clock, so the deadline is checked between simulations: a decision overruns its budget by
at most one simulation (one random rollout); ISMCTS runs at least two (the first only expands the root).
"""

from __future__ import annotations

import random
import time
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

import torres_rules as tr

from ..bots import evaluation
from ..bots.base import Action, Budget, View
from ..bots.determinize import sample_state
from .game import GAME_NAME, TorresGame, TorresState

OPENSPIEL_KINDS = ("ismcts", "ismcts-eval", "os-mcts")
UCT_C = 2.0
EVALUATION_SCALE = 30.0  # score points: an evaluation of +30 is a utility of tanh(1) = 0.76
_NO_CAP = 10**9


def load(players: int, edition: str, master: bool) -> TorresGame:
    game = pyspiel.load_game(GAME_NAME, {"players": players, "edition": edition, "master": master})
    assert isinstance(game, TorresGame)
    return game


class _TimedISMCTS(ismcts.ISMCTSBot):  # type: ignore[misc]
    """ISMCTS whose search stops at a deadline as well as after ``max_simulations``."""

    deadline = float("inf")

    def run_search(self, state: TorresState) -> list[tuple[int, float]]:
        # OpenSpiel's run_search with a clock: its own node, sampling and simulation steps, same final policy.
        # At least two simulations: the first only expands the root, which has no visited child before the second.
        self.reset()
        legal = state.legal_actions()
        if len(legal) == 1:
            return [(legal[0], 1.0)]
        self._root_node = self.create_new_node(state)
        simulations = 0
        while simulations < max(2, self._max_simulations) and (simulations < 2 or time.perf_counter() < self.deadline):
            self.run_simulation(self.sample_root_state(state))
            simulations += 1
        self.simulations = simulations
        return self.get_final_policy(state, self._root_node)  # type: ignore[no-any-return]


class _TimedMCTS(mcts.MCTSBot):  # type: ignore[misc]
    """MCTS whose search stops at a deadline: OpenSpiel's loop ends when the root is marked solved, so the
    root is marked once the deadline has passed (the root's own outcome plays no part in choosing a child)."""

    deadline = float("inf")

    def _apply_tree_policy(self, root: Any, state: TorresState) -> Any:
        if root.explore_count > 0 and time.perf_counter() >= self.deadline and root.outcome is None:
            root.outcome = np.zeros(self._game.num_players())
        return super()._apply_tree_policy(root, state)

    def mcts_search(self, state: TorresState) -> Any:
        root = super().mcts_search(state)
        self.simulations = root.explore_count
        return root


class StaticEvaluator(mcts.Evaluator):  # type: ignore[misc]
    """A leaf's value for every seat from our static evaluation (seat's projection minus the best other's),
    with OpenSpiel's uniform prior."""

    def evaluate(self, state: TorresState) -> np.ndarray:
        rules = state.rules_state
        return np.array([np.tanh(evaluation.evaluate(rules, seat) / EVALUATION_SCALE)
                         for seat in range(rules.players)])

    def prior(self, state: TorresState) -> list[tuple[int, float]]:
        legal = state.legal_actions(state.current_player())
        return [(action, 1.0 / len(legal)) for action in legal]


class OpenSpielBot:
    """One of OpenSpiel's bots, playing a seat from its view."""

    def __init__(self, kind: str) -> None:
        if kind not in OPENSPIEL_KINDS:
            raise ValueError(f"unknown OpenSpiel bot {kind!r}: expected one of {', '.join(OPENSPIEL_KINDS)}")
        self.name = kind
        self.kind = kind
        self.simulations: list[int] = []  # per search, for reports
        self._games: dict[tuple[int, str, bool], TorresGame] = {}

    def decide(self, view: View, rng: random.Random, budget: Budget) -> Action:
        game = self._game(view)
        root = game.from_rules_state(sample_state(view, rng))
        legal = root.legal_actions()
        if len(legal) == 1:
            return tr.decode(root.rules_state, legal[0])
        cap = budget.iterations if budget.iterations > 0 else _NO_CAP
        random_state = np.random.RandomState(rng.getrandbits(32))
        evaluator: mcts.Evaluator = (StaticEvaluator() if self.kind == "ismcts-eval"
                                     else mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=random_state))
        bot: _TimedISMCTS | _TimedMCTS
        if self.kind in ("ismcts", "ismcts-eval"):
            bot = _TimedISMCTS(game, evaluator, UCT_C, cap, random_state=random_state)
            # OpenSpiel's default resampler draws from a sampler seeded by the clock; ours from the decision's
            # rng, so a decision is a function of (view, seed) under a simulation cap, like our bots'.
            draw = random.Random(rng.getrandbits(64)).random
            bot.set_resampler(lambda state, player: state.resample_from_infostate(player, draw))
        else:
            bot = _TimedMCTS(game, UCT_C, cap, evaluator, solve=True, random_state=random_state)
        bot.deadline = time.perf_counter() + budget.seconds
        code = bot.step(root)
        self.simulations.append(getattr(bot, "simulations", 0))
        return tr.decode(root.rules_state, int(code))

    def _game(self, view: View) -> TorresGame:
        key = (int(view["players"]), str(view["edition"]), bool(view["master"]))
        if key not in self._games:
            self._games[key] = load(*key)
        return self._games[key]
