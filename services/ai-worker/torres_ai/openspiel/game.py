"""Torres as a registered OpenSpiel Python game (``pyspiel.load_game("torres", {...})``).

Parameters: ``players`` (2–4), ``edition`` (``rio_grande``, ``ravensburger``, ``yucata``) and ``master``
(the master version). The rules are ``torres_rules`` itself; this module only translates:

* **Chance nodes** draw everything ``tr.new_game`` draws at random, one outcome at a time, so OpenSpiel sees
  the real probabilities: the start player (editions with a random start player), the master card (master
  version), then the decks card by card — each personal deck from its owner's remaining kinds (uniform), or
  the common deck from the remaining copies (weighted by copies left). Outcome ids: a card kind's index in
  ``tr.CARD_KINDS``, a master card's index in ``tr.MASTER_CARDS``, or a seat. After the last draw the state
  is the one ``tr.new_game`` would have made with those deck orders (``tests/ai/test_openspiel_game.py``).
* **Player actions** are the rules package's integer action codes (``torres_rules.codes``: one fixed code per
  action ``legal_actions`` lists, ``tr.NUM_CODES`` in all); ``tr.apply_code`` plays one.
* **Observations and information states** are ``tr.view(state, seat)`` as canonical JSON: exactly what that
  seat may see (its own hand and looked-at cards, other hands' sizes, deck sizes, the cards already played).
  A public observation (``private_info=NONE``) is the spectator view ``tr.view(state, None)``. The information
  state is the view itself, not the list of past observations: the view holds everything about the past
  that can matter for the future except the cards a buyer put back on top of its own deck, which the view
  (and so every bot here) does not carry. OpenSpiel's information-state string is therefore not a
  perfect-recall one in that single respect (docs/ai.md).
* **Returns**: win/loss, zero-sum: the winner (highest final score; RULES 8 leaves no tie) gets +1, every
  other seat −1/(players−1).
* **Resampling** (what ISMCTS needs, ``resample_from_infostate``): a full position drawn from the seat's
  view by the AI worker's own determinization (``torres_ai.bots.determinize.sample_state``), so the sample
  shows that seat exactly its view.

Serialization is OpenSpiel's for Python games (the action history plus the pickled attributes; the engine's
State is pickled as its position JSON). A state made by ``from_rules_state`` or ``resample_from_infostate``
has no action history of its own: it is meant as the root of a search.
"""

from __future__ import annotations

import json
import random
from typing import Any

import numpy as np
import pyspiel

import torres_rules as tr

from ..bots.determinize import COPIES_PER_KIND, sample_state

GAME_NAME = "torres"
MAX_ACTIONS_PER_TURN = 12  # 7 AP actions at most (seven_ap), one card play, two keep_card, end_turn; margin 1
MAX_TURNS_PER_SEAT = 12  # 2 players: 3 phases x 4 rounds; 3-4 players: 4 + 3 + 3

_DEFAULTS: dict[str, Any] = {"players": 2, "edition": "rio_grande", "master": False}

GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Torres",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=4,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=False,
    parameter_specification=dict(_DEFAULTS),
)


def _canonical(view: dict[str, Any]) -> str:
    return json.dumps(view, sort_keys=True, separators=(",", ":"))


class _Frozen:
    """Holds an immutable ``tr.State``: OpenSpiel clones a Python state by deep-copying its attributes, and an
    immutable value needs no copy (a deep copy of the engine's State would cost time and may not exist for
    the compiled build)."""

    __slots__ = ("state", "views")

    def __init__(self, state: tr.State) -> None:
        self.state = state
        # Canonical view strings by seat (None: spectator), made on first use: ISMCTS asks for a node's
        # information state at every visit, and the JSON encoding is most of that cost.
        self.views: dict[int | None, str] = {}

    def view_string(self, seat: int | None) -> str:
        text = self.views.get(seat)
        if text is None:
            text = self.views[seat] = _canonical(tr.view(self.state, seat))
        return text

    def __deepcopy__(self, memo: dict[int, Any]) -> _Frozen:
        return self

    def __reduce__(self) -> tuple[Any, tuple[dict[str, Any]]]:
        # OpenSpiel serializes a Python state by pickling its attributes: the engine's State travels as its
        # position JSON (the compiled State cannot be pickled) and comes back through tr.from_position.
        return _thaw, (tr.to_position(self.state),)


def _thaw(position: dict[str, Any]) -> _Frozen:
    return _Frozen(tr.from_position(position))


class TorresGame(pyspiel.Game):
    """The game object: parameters, the deal plan, and a template position for the chance phase to fill."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        merged = {**_DEFAULTS, **(params or {})}
        self.players = int(merged["players"])
        self.edition = str(merged["edition"])
        self.master = bool(merged["master"])
        # tr.new_game validates the parameters and gives every non-random part of the first position.
        template = tr.new_game(players=self.players, seed=0, edition=self.edition, master=self.master)
        self.template = tr.to_position(template)
        options = template.options
        self.random_start = options.start_player == "random"
        self.deck_mode = options.deck
        # The chance steps, in order: ("start", None), ("master", None), ("personal", owner) x 10 per owner,
        # or ("common", None) x 40.
        plan: list[tuple[str, int | None]] = []
        if self.random_start:
            plan.append(("start", None))
        if self.master:
            plan.append(("master", None))
        if self.deck_mode == "personal":
            plan += [("personal", owner) for owner in range(self.players) for _ in tr.CARD_KINDS]
        elif self.deck_mode == "common":
            plan += [("common", None)] * (len(tr.CARD_KINDS) * COPIES_PER_KIND)
        self.deal_plan = tuple(plan)
        setup = (8 if self.master else 0) + self.players + 1 + 2  # foundations, start knights, king, king moves
        info = pyspiel.GameInfo(
            num_distinct_actions=tr.NUM_CODES,
            max_chance_outcomes=max(len(tr.CARD_KINDS), len(tr.MASTER_CARDS), self.players),
            num_players=self.players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=setup + self.players * MAX_TURNS_PER_SEAT * MAX_ACTIONS_PER_TURN,
        )
        super().__init__(GAME_TYPE, info, {"players": self.players, "edition": self.edition,
                                           "master": self.master})

    def new_initial_state(self) -> TorresState:
        return TorresState(self)

    def from_rules_state(self, state: tr.State) -> TorresState:
        """A decision state holding ``state`` (no chance phase, no history): the root of a search."""
        out = TorresState(self)
        out._rules = _Frozen(state)
        return out

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> ViewObserver:
        if params:
            raise ValueError(f"observation parameters not supported; passed {params}")
        public_only = iig_obs_type is not None and iig_obs_type.private_info == pyspiel.PrivateInfoType.NONE
        return ViewObserver(public_only)


class TorresState(pyspiel.State):
    """Chance phase (``_dealt`` grows until the deal plan is done), then a wrapped immutable ``tr.State``."""

    def __init__(self, game: TorresGame) -> None:
        super().__init__(game)
        self._dealt: tuple[int, ...] = ()
        self._rules: _Frozen | None = None

    # --- what OpenSpiel asks -----------------------------------------------------------------------------

    @property
    def rules_state(self) -> tr.State:
        """The engine's State (only after the chance phase)."""
        if self._rules is None:
            raise ValueError("the cards are still being dealt")
        return self._rules.state

    def current_player(self) -> int:
        if self._rules is None:
            return int(pyspiel.PlayerId.CHANCE)
        state = self._rules.state
        if tr.is_over(state):
            return int(pyspiel.PlayerId.TERMINAL)
        assert state.to_move is not None
        return int(state.to_move)

    def _legal_actions(self, player: int) -> list[int]:
        assert self._rules is not None and player >= 0
        return sorted(tr.legal_codes(self._rules.state))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        assert self._rules is None
        game = self._game()
        step, owner = game.deal_plan[len(self._dealt)]
        if step == "start":
            return [(seat, 1 / game.players) for seat in range(game.players)]
        if step == "master":
            return [(card, 1 / len(tr.MASTER_CARDS)) for card in range(len(tr.MASTER_CARDS))]
        if step == "personal":
            drawn = set(self._deck_draws(owner))
            left = [kind for kind in range(len(tr.CARD_KINDS)) if kind not in drawn]
            return [(kind, 1 / len(left)) for kind in left]
        counts = [COPIES_PER_KIND] * len(tr.CARD_KINDS)
        for kind in self._deck_draws(None):
            counts[kind] -= 1
        total = sum(counts)
        return [(kind, n / total) for kind, n in enumerate(counts) if n]

    def _apply_action(self, action: int) -> None:
        if self._rules is None:
            self._dealt += (int(action),)
            if len(self._dealt) == len(self._game().deal_plan):
                self._rules = _Frozen(self._deal())
        else:
            self._rules = _Frozen(tr.apply_code(self._rules.state, int(action)))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            game = self._game()
            step = game.deal_plan[min(len(self._dealt), len(game.deal_plan) - 1)][0]
            if step == "start":
                return f"start player {action}"
            if step == "master":
                return f"master card {tr.MASTER_CARDS[action]}"
            return f"deal {tr.CARD_KINDS[action]}"
        if self._rules is not None:
            try:
                return _canonical(tr.decode(self._rules.state, int(action)))
            except tr.IllegalAction:
                pass
        return f"code {action}"

    def is_terminal(self) -> bool:
        return self._rules is not None and tr.is_over(self._rules.state)

    def returns(self) -> list[float]:
        players = self._game().players
        if not self.is_terminal():
            return [0.0] * players
        winner = tr.winner(self.rules_state)
        return [1.0 if seat == winner else -1.0 / (players - 1) for seat in range(players)]

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> TorresState:
        """A full state drawn uniformly from those ``player_id``'s view allows (the AI worker's
        determinization); ``probability_sampler`` (OpenSpiel's uniform sampler) seeds the draw."""
        rng = random.Random(int(probability_sampler() * 2**53))
        return self._game().from_rules_state(sample_state(tr.view(self.rules_state, player_id), rng))

    def __str__(self) -> str:
        if self._rules is None:
            return f"dealing {len(self._dealt)}/{len(self._game().deal_plan)}: {list(self._dealt)}"
        return _canonical(tr.to_position(self._rules.state))

    # --- helpers -----------------------------------------------------------------------------------------

    def _game(self) -> TorresGame:
        game = self.get_game()
        assert isinstance(game, TorresGame)
        return game

    def _deck_draws(self, owner: int | None) -> list[int]:
        plan = self._game().deal_plan
        kind = "common" if owner is None else "personal"
        return [card for card, step in zip(self._dealt, plan, strict=False) if step == (kind, owner)]

    def _deal(self) -> tr.State:
        """The first position with the dealt outcomes, as ``tr.new_game`` lays it out."""
        game = self._game()
        position = dict(game.template)
        for card, (step, _) in zip(self._dealt, game.deal_plan, strict=True):
            if step == "start":
                position["start_player"] = position["to_move"] = card
            elif step == "master":
                position["master_card"] = tr.MASTER_CARDS[card]
        if game.deck_mode == "personal":
            position["decks"] = [[tr.CARD_KINDS[k] for k in self._deck_draws(owner)] for owner in range(game.players)]
        elif game.deck_mode == "common":
            position["deck"] = [tr.CARD_KINDS[k] for k in self._deck_draws(None)]
        return tr.from_position(position)


class ViewObserver:
    """OpenSpiel's observer interface over ``tr.view``: strings only (``tensor`` is None)."""

    tensor = None

    def __init__(self, public_only: bool) -> None:
        self._public_only = public_only
        self.dict: dict[str, np.ndarray] = {}

    def set_from(self, state: TorresState, player: int) -> None:
        pass  # no tensor to fill

    def string_from(self, state: TorresState, player: int) -> str:
        if state._rules is None:
            # Nobody sees a dealt card (RULES 13: deck order is secret to all), only the public draws.
            game = state._game()
            public = [outcome for outcome, (step, _) in zip(state._dealt, game.deal_plan, strict=False)
                      if step in ("start", "master")]
            return f"dealing {len(state._dealt)}/{len(game.deal_plan)} {public}"
        return state._rules.view_string(None if self._public_only else player)


pyspiel.register_game(GAME_TYPE, TorresGame)
