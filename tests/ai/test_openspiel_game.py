"""Torres as an OpenSpiel game: OpenSpiel's own checks, and what the translation promises.

OpenSpiel's ``pyspiel.random_sim_test`` is what it runs for its own games: random playouts checking sorted and
unique legal actions, legal-action masks, clones, serialization (history replay), information-state and
observation strings for every player at every node, the game length bound and the returns' sum and range.
"""

from __future__ import annotations

import json
import random
from typing import Any

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import ismcts, mcts
from open_spiel.python.observation import make_observation

import torres_rules as tr
from torres_ai.openspiel import TorresGame, TorresState

GAMES = [
    {"players": 2, "edition": "rio_grande", "master": False},
    {"players": 3, "edition": "ravensburger", "master": False},  # the common deck: weighted chance outcomes
    {"players": 4, "edition": "yucata", "master": False},  # a random start player: one more chance node
    {"players": 2, "edition": "ravensburger", "master": True},  # the master version: master card, hands dealt
    {"players": 3, "edition": "rio_grande", "master": True},
]


def load(params: dict[str, Any]) -> TorresGame:
    game = pyspiel.load_game("torres", params)
    assert isinstance(game, TorresGame)
    return game


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def random_states(game: TorresGame, seed: int, every: int = 1) -> list[TorresState]:
    """Clones of every ``every``-th decision state of one random playout, and the terminal state."""
    rng = random.Random(seed)
    state = game.new_initial_state()
    out = []
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(actions, probs)[0])
            continue
        if state.move_number() % every == 0:
            out.append(state.clone())
        state.apply_action(rng.choice(state.legal_actions()))
    out.append(state)
    return out


@pytest.mark.parametrize("params", GAMES, ids=lambda p: f"{p['players']}p-{p['edition']}{'-master' * p['master']}")
def test_openspiel_random_simulation_checks_pass(params: dict[str, Any]) -> None:
    game = load(params)
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def test_game_string_round_trips_and_parameters_reach_the_rules() -> None:
    game = load({"players": 4, "edition": "ravensburger", "master": True})
    again = pyspiel.load_game(str(game))
    assert str(again) == str(game) == "torres(edition=ravensburger,master=True,players=4)"
    assert game.num_players() == 4 and game.num_distinct_actions() == tr.NUM_CODES
    state = random_states(game, seed=1)[0]
    rules = state.rules_state
    assert (rules.players, rules.edition, rules.master) == (4, "ravensburger", True)
    with pytest.raises(ValueError, match="2 to 4 players"):  # the rules package's own check
        pyspiel.load_game("torres", {"players": 5})


@pytest.mark.parametrize("params", GAMES[:4], ids=lambda p: f"{p['players']}p-{p['edition']}{'-master' * p['master']}")
@pytest.mark.parametrize("seed", [3, 11])
def test_the_chance_phase_deals_what_new_game_deals(params: dict[str, Any], seed: int) -> None:
    """Feeding tr.new_game's random draws as chance outcomes gives exactly tr.new_game's position, and every
    chance node's outcomes are a probability distribution that contains the outcome drawn."""
    expected = tr.new_game(seed=seed, **params)
    position = tr.to_position(expected)
    outcomes: list[int] = []
    game = load(params)
    for step, _ in game.deal_plan:
        if step == "start":
            outcomes.append(position["start_player"])
        elif step == "master":
            outcomes.append(tr.MASTER_CARDS.index(position["master_card"]))
    for owner in range(params["players"]):
        if position["decks"] is not None:
            outcomes += [tr.CARD_KINDS.index(card) for card in position["decks"][owner]]
    if position["deck"] is not None:
        outcomes += [tr.CARD_KINDS.index(card) for card in position["deck"]]
    state = game.new_initial_state()
    for outcome in outcomes:
        assert state.is_chance_node()
        distribution = dict(state.chance_outcomes())
        assert sum(distribution.values()) == pytest.approx(1.0)
        assert outcome in distribution
        state.apply_action(outcome)
    assert not state.is_chance_node()
    assert canonical(tr.to_position(state.rules_state)) == canonical(position)


def test_common_deck_outcomes_are_weighted_by_the_copies_left() -> None:
    game = load({"players": 2, "edition": "ravensburger"})
    state = game.new_initial_state()
    for _ in range(3):
        state.apply_action(tr.CARD_KINDS.index("jump"))
    distribution = dict(state.chance_outcomes())
    assert distribution[tr.CARD_KINDS.index("jump")] == pytest.approx(1 / 37)
    assert distribution[tr.CARD_KINDS.index("diagonal")] == pytest.approx(4 / 37)
    state.apply_action(tr.CARD_KINDS.index("jump"))
    assert tr.CARD_KINDS.index("jump") not in dict(state.chance_outcomes())  # all four copies dealt


@pytest.mark.parametrize("params", [GAMES[0], GAMES[1], GAMES[3]], ids=["rio_grande", "ravensburger", "master"])
def test_legal_actions_are_the_rules_legal_actions_one_to_one(params: dict[str, Any]) -> None:
    """OpenSpiel's legal actions are distinct codes, one per action tr.legal_actions lists, and playing a code
    through OpenSpiel is tr.apply of that action."""
    for state in random_states(load(params), seed=5, every=3)[:-1]:
        rules = state.rules_state
        codes = state.legal_actions()
        listed = tr.legal_actions(rules)
        assert len(codes) == len(set(codes)) == len(listed)
        assert sorted(canonical(tr.decode(rules, code)) for code in codes) == sorted(map(canonical, listed))
        action = random.Random(len(codes)).choice(codes)
        child = state.child(action)
        assert isinstance(child, TorresState)
        assert canonical(tr.to_position(child.rules_state)) == canonical(
            tr.to_position(tr.apply(rules, tr.decode(rules, action))))
        assert state.action_to_string(state.current_player(), action) == canonical(tr.decode(rules, action))


@pytest.mark.parametrize("params", [GAMES[0], GAMES[1], GAMES[4]], ids=["rio_grande", "ravensburger", "master"])
def test_information_states_and_observations_are_the_seats_views(params: dict[str, Any]) -> None:
    game = load(params)
    public = make_observation(game, pyspiel.IIGObservationType(
        perfect_recall=False, public_info=True, private_info=pyspiel.PrivateInfoType.NONE))
    for state in random_states(game, seed=7, every=5):
        rules = state.rules_state
        for seat in range(game.num_players()):
            view = canonical(tr.view(rules, seat))
            assert state.information_state_string(seat) == view
            assert state.observation_string(seat) == view
        spectator = canonical(tr.view(rules, None))
        assert public.string_from(state, 0) == spectator
        assert '"hands"' not in spectator and '"decks"' not in spectator


def test_nobody_observes_a_dealt_card() -> None:
    game = load({"players": 2})
    first, second = game.new_initial_state(), game.new_initial_state()
    first.apply_action(0)
    second.apply_action(9)
    for seat in (0, 1):
        assert first.information_state_string(seat) == second.information_state_string(seat)


@pytest.mark.parametrize("params", GAMES[:3], ids=["2p", "3p", "4p"])
def test_returns_are_win_loss_zero_sum(params: dict[str, Any]) -> None:
    terminal = random_states(load(params), seed=2, every=1000)[-1]
    assert terminal.is_terminal()
    players = params["players"]
    winner = tr.winner(terminal.rules_state)
    expected = [1.0 if seat == winner else -1 / (players - 1) for seat in range(players)]
    assert terminal.returns() == pytest.approx(expected)
    assert sum(terminal.returns()) == pytest.approx(0.0)


@pytest.mark.parametrize("params", [GAMES[0], GAMES[1], GAMES[3]], ids=["rio_grande", "ravensburger", "master"])
def test_resampling_keeps_the_seats_view_and_redraws_the_hidden_cards(params: dict[str, Any]) -> None:
    game = load(params)
    states = random_states(game, seed=9, every=4)[:-1]
    differed = 0
    for state in states:
        seat = state.current_player()
        sampler = pyspiel.UniformProbabilitySampler(len(state.history()), 0.0, 1.0)
        sample = state.resample_from_infostate(seat, sampler)
        assert sample.information_state_string(seat) == state.information_state_string(seat)
        assert sample.legal_actions() == state.legal_actions()
        hidden = canonical(tr.to_position(sample.rules_state)) != canonical(tr.to_position(state.rules_state))
        differed += hidden
    if params["master"]:
        assert differed == 0  # every hand is all cards but those played: nothing is hidden
    else:
        assert differed > len(states) // 2


def test_openspiels_own_ismcts_and_mcts_play_it() -> None:
    """The library's bots, unmodified: ISMCTS resamples through resample_from_infostate (and asserts that each
    sample has the root's information state); MCTS searches a state as it is."""
    game = load({"players": 2})
    state = next(s for s in random_states(game, seed=4, every=3) if s.move_number() > 60 and len(s.legal_actions()) > 1)
    rng = np.random.RandomState(1)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    is_bot = ismcts.ISMCTSBot(game, evaluator, 2.0, max_simulations=6, random_state=rng)
    assert is_bot.step(state) in state.legal_actions()
    mcts_bot = mcts.MCTSBot(game, 2.0, 6, evaluator, random_state=rng)
    assert mcts_bot.step(state) in state.legal_actions()
