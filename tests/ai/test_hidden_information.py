"""A bot's input contains nothing its seat may not see.

1. The entry point takes a view, and the view of the mover carries no other hand and no deck order.
2. Two true states that differ only in hidden parts (other hands, every deck order) give the same view,
   and every bot, seeded alike, makes the same decision from it: it cannot depend on what it cannot see.
3. The sampled determinization is consistent with the view: viewed from the seat it is the same view.
"""

from __future__ import annotations

import inspect
import json
import random

import pytest

import torres_rules as tr
from torres_ai.bots import Budget, make_bot
from torres_ai.bots.base import Bot
from torres_ai.bots.determinize import sample_state

BUDGET = Budget(iterations=6, seconds=30.0)  # iteration-bound: decisions are a function of (view, seed)
BOTS = ("random", "greedy", "mcts")


def _positions(edition: str, master: bool, players: int, count: int) -> list[tr.State]:
    """Turn-start and keep_card positions along a random game, with cards in hands."""
    rng = random.Random(11)
    state = tr.new_game(players=players, seed=5, edition=edition, master=master)
    out: list[tr.State] = []
    while not tr.is_over(state) and len(out) < count:
        if (state.stage == "keep_card" or (state.stage == "turn" and state.ap_spent == 0)) and any(state.hands):
            out.append(state)
        legal = tr.legal_actions(state)
        buys = [a for a in legal if a["type"] == "buy_card"]
        state = tr.apply(state, buys[0] if buys and rng.random() < 0.5 else rng.choice(legal))
    assert len(out) == count
    return out


def _reshuffle_secrets(state: tr.State, seat: int, rng: random.Random) -> tr.State:
    """The same public position with other seats' hands swapped against their decks and every deck
    order shuffled: exactly what the seat cannot see."""
    position = tr.to_position(state)
    players = position["players"]
    if position["decks"] is not None:
        for other in range(players):
            deck = position["decks"][other]
            if other != seat:
                pool = position["hands"][other] + deck
                rng.shuffle(pool)
                keep = position["bought_this_turn"] if other == position["to_move"] else []
                rest = [c for c in pool if c not in keep]
                size = len(position["hands"][other]) - len(keep)
                position["hands"][other] = keep + rest[:size]
                position["decks"][other] = rest[size:]
            else:
                rng.shuffle(deck)
    if position["deck"] is not None:
        pool = position["deck"] + [c for o in range(players) if o != seat for c in position["hands"][o]]
        rng.shuffle(pool)
        for other in range(players):
            if other != seat:
                size = len(position["hands"][other])
                position["hands"][other], pool = pool[:size], pool[size:]
        position["deck"] = pool
    if position["master"]:
        for other in range(players):
            if other != seat:
                unseen = [k for k in tr.CARD_KINDS  # played cards are public (RULES 13): never hidden
                          if k not in position["hands"][other] and k not in position["played"][other]]
                rng.shuffle(unseen)
                n = rng.randint(0, min(len(unseen), len(position["hands"][other])))
                position["hands"][other] = position["hands"][other][n:] + unseen[:n]
    return tr.from_position(position)


def test_the_decision_signature_takes_a_view_not_a_state() -> None:
    params = list(inspect.signature(Bot.decide).parameters)
    assert params == ["self", "view", "rng", "budget"]
    for kind in BOTS:
        assert list(inspect.signature(make_bot(kind).decide).parameters) == ["view", "rng", "budget"]


@pytest.mark.parametrize(("edition", "master", "players"), [
    ("rio_grande", False, 2), ("ravensburger", False, 3), ("rio_grande", True, 2),
])
def test_hidden_parts_change_neither_the_input_nor_the_decision(edition: str, master: bool, players: int) -> None:
    rng = random.Random(3)
    changed = 0
    for state in _positions(edition, master, players, 5):
        seat = state.to_move
        assert seat is not None
        view = tr.view(state, seat)
        assert not {"hands", "decks", "deck"} & set(view)
        twin = _reshuffle_secrets(state, seat, rng)
        changed += tr.to_position(twin) != tr.to_position(state)
        assert tr.view(twin, seat) == view
        for kind in BOTS:
            first = make_bot(kind).decide(tr.view(state, seat), random.Random(42), BUDGET)
            second = make_bot(kind).decide(tr.view(twin, seat), random.Random(42), BUDGET)
            assert first == second, (kind, state.stage)
    # The hidden parts really differed. Master version: every hand is all cards but those played, and played
    # cards are public (RULES 13), so nothing is hidden there any more.
    assert changed >= (0 if master else 3)


@pytest.mark.parametrize(("edition", "master", "players"), [
    ("rio_grande", False, 2), ("ravensburger", False, 4), ("yucata", False, 3), ("rio_grande", True, 3),
])
def test_a_sampled_state_shows_the_seat_exactly_its_view(edition: str, master: bool, players: int) -> None:
    for state in _positions(edition, master, players, 6):
        for seat in range(players):
            view = tr.view(state, seat)
            sampled = sample_state(view, random.Random(seat))
            assert tr.view(sampled, seat) == view
            assert tr.legal_actions(sampled) == tr.legal_actions(state) or seat != state.to_move
            if seat != state.to_move:
                continue
            assert json.dumps(tr.legal_actions(sampled)) == json.dumps(tr.legal_actions(state))
