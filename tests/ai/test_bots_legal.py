"""Every bot returns a legal action for every reachable position of every edition.

Hypothesis draws an edition, a player count, the master version or not, a seed and how far to walk a
random game; every bot then decides from the mover's view. A second test plays whole games with the bots
themselves (so positions the bots steer into are covered too) and checks that the decisions really
included setup, card choices, spreads (end_turn) and the king move.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import torres_rules as tr
from torres_ai.bots import Budget, make_bot

CHEAP = Budget(iterations=3, seconds=0.5)
BOTS = ("random", "greedy", "mcts")


def _walk(players: int, edition: str, master: bool, seed: int, steps: int) -> tr.State:
    rng = random.Random(seed)
    state = tr.new_game(players=players, seed=seed, edition=edition, master=master)
    for _ in range(steps):
        if tr.is_over(state):
            break
        state = tr.apply(state, rng.choice(tr.legal_actions(state)))
    return state


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    players=st.integers(2, 4),
    edition=st.sampled_from(tr.EDITIONS),
    master=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
    steps=st.integers(0, 400),
)
def test_every_bot_is_legal_in_random_reachable_positions(
    players: int, edition: str, master: bool, seed: int, steps: int
) -> None:
    state = _walk(players, edition, master, seed, steps)
    if tr.is_over(state):
        return
    seat = state.to_move
    assert seat is not None
    legal = tr.legal_actions(state)
    for kind in BOTS:
        action = make_bot(kind).decide(tr.view(state, seat), random.Random(seed), CHEAP)
        assert action in legal, (kind, state.stage, action)
        tr.apply(state, action)


@pytest.mark.parametrize(("edition", "master", "players"), [
    ("rio_grande", False, 2), ("ravensburger", False, 3), ("yucata", False, 4), ("rio_grande", True, 2),
    ("ravensburger", True, 3),
])
def test_bots_play_whole_games_legally_through_every_stage(edition: str, master: bool, players: int) -> None:
    kinds = [BOTS[(i + players) % 3] for i in range(players)]
    bots = [make_bot(k) for k in kinds]
    rng = random.Random(players)
    state = tr.new_game(players=players, seed=players * 7 + int(master), edition=edition, master=master)
    decided: Counter[str] = Counter()
    while not tr.is_over(state):
        seat = state.to_move
        assert seat is not None
        action = bots[seat].decide(tr.view(state, seat), random.Random(rng.getrandbits(32)), CHEAP)
        assert action in tr.legal_actions(state), (kinds[seat], state.stage, action)
        decided[action["type"]] += 1
        if action["type"] == "end_turn" and any(action.get("spread") or []):
            decided["spread"] += 1
        state = tr.apply(state, action)
    expected = {"place_start_knight", "place_king", "move_king", "end_turn"}
    if master:
        expected.add("place_foundation")
    assert expected <= set(decided), decided
    assert decided["end_turn"] >= 3 * 3 * players  # at least three turns a phase each
    if players > 2:  # 2-player stacks start full (3 blocks), so only 3-4 players must spread leftovers
        assert decided["spread"] > 0, decided


def test_card_choices_are_legal_for_every_bot() -> None:
    """keep_card (personal decks) and play_card come up often enough in random games to check them directly."""
    seen = Counter()
    for seed in range(40):
        rng = random.Random(seed)
        state = tr.new_game(players=2, seed=seed)
        while not tr.is_over(state) and seen["keep_card"] < 8:
            legal = tr.legal_actions(state)
            if state.stage == "keep_card" or any(a["type"] == "play_card" for a in legal):
                seat = state.to_move
                assert seat is not None
                for kind in BOTS:
                    action = make_bot(kind).decide(tr.view(state, seat), random.Random(seed), CHEAP)
                    assert action in legal
                seen[state.stage] += 1
            state = tr.apply(state, rng.choice(legal))
        if seen["keep_card"] >= 8 and seen["turn"] >= 8:
            break
    assert seen["keep_card"] >= 8 and seen["turn"] >= 8, seen
