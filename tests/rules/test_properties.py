"""Property tests: random legal games in every configuration keep the invariants of docs/rules.md section 2."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import torres_rules as tr
from torres_rules.names import CARD_KINDS

from .invariants import check_position, check_transition

CONFIGS = [
    (players, edition, master)
    for players in (2, 3, 4)
    for edition in ("rio_grande", "ravensburger", "yucata")
    for master in (False, True)
]
SQUARES = [f"{c}{r}" for c in "ABCDEFGH" for r in range(1, 9)]
PROBE_SETTINGS = settings(max_examples=2, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def random_candidate(rng: random.Random, state: tr.State, legal: list[dict]) -> dict:
    """An action of a type whose legal set is listed completely, with random fields."""
    kind = rng.choice(["place_foundation", "place_start_knight", "place_king", "place_knight", "move_knight",
                       "build", "buy_card", "advance_track", "play_card", "move_king", "keep_card"])
    sq = lambda: rng.choice(SQUARES)  # noqa: E731
    if kind in ("place_foundation", "place_start_knight", "place_king", "place_knight"):
        return {"type": kind, "at": sq()}
    if kind == "move_knight":
        return {"type": kind, "from": sq(), "to": sq()}
    if kind == "build":
        listed = [a["stack"] for a in legal if a["type"] == "build"]
        return {"type": kind, "at": sq(), "stack": listed[0] if listed else rng.randrange(4)}
    if kind == "move_king":
        return {"type": kind, "to": rng.choice([None, sq()])}
    if kind == "keep_card":
        return {"type": kind, "card": rng.choice(CARD_KINDS), "rest": rng.choice(["top", "bottom"]), "order": []}
    if kind == "play_card":
        card = rng.choice(CARD_KINDS)
        if card in ("six_ap", "seven_ap"):
            return {"type": kind, "card": card}
        if card == "extra_block":
            return {"type": kind, "card": card, "at": sq()}
        if card == "block_under_knight":
            listed = [a["stack"] for a in legal if a["type"] == "play_card" and a["card"] == card]
            return {"type": kind, "card": card, "at": sq(), "stack": listed[0] if listed else 0}
        return {"type": kind, "card": card, "from": sq(), "to": sq()}
    return {"type": kind}


def random_walk(rng: random.Random, state: tr.State) -> Iterator[tr.State]:
    """``state`` and every state after it, each after a random legal action (``rng``), up to the game's end (the
    ended state not included): what a test checks is run on each before the walk goes on."""
    while not tr.is_over(state):
        yield state
        state = tr.apply(state, rng.choice(tr.legal_actions(state)))


def play_checked(players: int, edition: str, master: bool, seed: int, probes: int = 2) -> list[dict]:
    rng = random.Random(seed)
    state = tr.new_game(players, seed=seed, edition=edition, master=master)
    history: list[dict] = []
    position = state.to_position()
    check_position(position)
    while not tr.is_over(state):
        legal = tr.legal_actions(state)
        assert legal, "a game that is not over always has a legal action"
        for _ in range(probes):
            candidate = random_candidate(rng, state, legal)
            if candidate not in legal:
                with pytest.raises(tr.IllegalAction):
                    tr.apply(state, candidate)
        action = rng.choice(legal)
        after = tr.apply(state, action)
        assert tr.to_position(state) == position, "apply changed the state it was given"
        after_position = after.to_position()
        check_position(after_position)
        check_transition(position, after_position)
        assert tr.from_position(after_position) == after
        history.append(action)
        state, position = after, after_position
    assert tr.winner(state) is not None
    return history


@pytest.mark.parametrize(("players", "edition", "master"), CONFIGS)
@PROBE_SETTINGS
@given(seed=st.integers(0, 2**32 - 1))
def test_random_games_keep_invariants(players: int, edition: str, master: bool, seed: int) -> None:
    play_checked(players, edition, master, seed)


@pytest.mark.parametrize("deck", ["personal", "common"])
@pytest.mark.parametrize("players", [2, 4])
@PROBE_SETTINGS
@given(seed=st.integers(0, 2**32 - 1))
def test_every_deck_mode_keeps_invariants(deck: str, players: int, seed: int) -> None:
    edition = "ravensburger" if deck == "personal" else "rio_grande"
    rng = random.Random(seed)
    state = tr.new_game(players, seed=seed, edition=edition, deck=deck)
    while not tr.is_over(state):
        before = state.to_position()
        state = tr.apply(state, rng.choice(tr.legal_actions(state)))
        check_position(state.to_position())
        check_transition(before, state.to_position())


@settings(max_examples=5, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), players=st.sampled_from([2, 3, 4]),
       edition=st.sampled_from(tr.EDITIONS), master=st.booleans())
def test_same_seed_and_actions_give_the_same_state(seed: int, players: int, edition: str, master: bool) -> None:
    rng = random.Random(seed)
    a = tr.new_game(players, seed=seed, edition=edition, master=master)
    b = tr.new_game(players, seed=seed, edition=edition, master=master)
    assert a == b and hash(a) == hash(b)
    while not tr.is_over(a):
        action = rng.choice(tr.legal_actions(a))
        a, b = tr.apply(a, action), tr.apply(b, action)
        assert a == b and hash(a) == hash(b)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), players=st.sampled_from([2, 3, 4]),
       edition=st.sampled_from(tr.EDITIONS), master=st.booleans())
def test_no_view_leaks_hidden_information(seed: int, players: int, edition: str, master: bool) -> None:
    """RULES 13: a seat's view never holds another seat's hand cards or any deck order."""
    rng = random.Random(seed)
    for state in random_walk(rng, tr.new_game(players, seed=seed, edition=edition, master=master)):
        for seat in [None, *range(players)]:
            assert_view_hides(state, seat)


def card_paths(value: object, path: str = "") -> list[str]:
    """Every place in a JSON value where a card name occurs."""
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in card_paths(v, f"{path}/{k}")]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in card_paths(v, f"{path}/{i}")]
    return [path] if value in CARD_KINDS else []


def assert_view_hides(state: tr.State, seat: int | None) -> None:
    view = tr.view(state, seat)
    full = state.to_position()
    allowed = {f"/played/{owner}/{i}" for owner, cards in enumerate(full["played"]) for i in range(len(cards))}
    if seat is not None:
        assert view["hand"] == full["hands"][seat]
        allowed |= {f"/hand/{i}" for i in range(len(full["hands"][seat]))}
        if seat == state.to_move:
            allowed |= {f"/seen/{i}" for i in range(len(full["seen"] or []))}
            allowed |= {f"/bought_this_turn/{i}" for i in range(len(full["bought_this_turn"]))}
    leaked = set(card_paths(view)) - allowed
    assert not leaked, f"seat {seat} sees hidden cards at {sorted(leaked)}"
    assert view["hand_sizes"] == [len(h) for h in full["hands"]]
    for key in ("hands", "decks", "deck"):
        assert key not in view


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), players=st.sampled_from([2, 3, 4]), master=st.booleans())
def test_incremental_castle_tables_match_a_fresh_analysis(seed: int, players: int, master: bool) -> None:
    """The engine updates castles and build squares incrementally per block; they must equal a fresh analysis."""
    from torres_rules.castles import Castles

    rng = random.Random(seed)
    for state in random_walk(rng, tr.new_game(players, seed=seed, master=master)):
        fresh = Castles(state.heights)
        derived = state.castles
        assert sorted(derived.members) == sorted(fresh.members)
        assert derived.build_squares() == fresh.build_squares()
        for sq in range(64):  # every square a knight could stand on, the knights included
            assert derived.reach(sq) == fresh.reach(sq)


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), players=st.sampled_from([2, 3, 4]), master=st.booleans())
def test_move_block_targets_match_the_judgement_of_the_result(seed: int, players: int, master: bool) -> None:
    """move_block's fast generator must agree with judging every destination on the board it leaves (9.8)."""
    from torres_rules import building

    rng = random.Random(seed)
    for state in random_walk(rng, tr.new_game(players, seed=seed, master=master)):
        if state.stage == "turn" and rng.random() < 0.2:
            for frm in range(64):
                if state.heights[frm]:
                    judged = [to for to in range(64) if building.move_block_problem(state, frm, to) is None]
                    assert building.move_block_targets(state, frm) == judged
