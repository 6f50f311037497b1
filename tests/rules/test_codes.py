"""Integer action codes (codes.py): a fixed, one-to-one numbering of every action `legal_actions` lists.

Random games in every edition and mode check that each listed action round-trips wire form -> code -> wire form,
that codes are distinct within a position and inside range(NUM_CODES), and that `legal_codes` / `apply_code`
are `legal_actions` / `apply` in codes. Pinned numbers keep the published numbering from moving (OpenSpiel's
action space is this numbering).
"""

from __future__ import annotations

import random
from typing import Any

import pytest

import torres_rules as tr
from torres_rules import codes

from .helpers import pos

GAMES_PER_CONFIG = 16  # x 3 editions x (normal, master) x both deck modes where they differ: ~200 games
CONFIGS = [
    (edition, master, deck)
    for edition in tr.EDITIONS
    for master in (False, True)
    for deck in ((None,) if master else (None, "personal", "common"))
]


def play_checking(edition: str, master: bool, deck: str | None, players: int, seed: int) -> int:
    rng = random.Random(seed)
    options: dict[str, Any] = {} if deck is None else {"deck": deck}
    state = tr.new_game(players, seed=seed, edition=edition, master=master, **options)
    actions = 0
    while not tr.is_over(state):
        legal = tr.legal_actions(state)
        legal_codes = tr.legal_codes(state)
        assert legal_codes == [codes.code_of(a) for a in legal]
        assert len(set(legal_codes)) == len(legal_codes), "two listed actions share a code"
        assert all(0 <= c < tr.NUM_CODES for c in legal_codes)
        assert [tr.decode(state, c) for c in legal_codes] == legal
        probe_unlisted(state, legal_codes, rng)
        i = rng.randrange(len(legal))
        assert tr.encode(state, legal[i]) == legal_codes[i]
        after = tr.apply_code(state, legal_codes[i])
        assert after == tr.apply(state, legal[i])
        state = after
        actions += 1
    return actions


def probe_unlisted(state: tr.State, legal_codes: list[int], rng: random.Random) -> None:
    """A random code near a listed one (same kind, other squares or stack) and one from anywhere: apply_code
    refuses it, or it is a legal variant of a listed action (a stack of the same height), and agrees with apply
    of its wire form."""
    near = rng.choice(legal_codes) ^ rng.choice((1, 2, 8, 64, 128))
    for code in (near, rng.randrange(codes.KEEP_CARD_END)):
        try:
            after: tr.State | str = tr.apply_code(state, code)
        except tr.IllegalAction as exc:
            after = str(exc)
        try:
            wire = codes.wire_of(code)
        except codes.NoCode:
            assert isinstance(after, str)
            continue
        try:
            assert after == tr.apply(state, wire)
        except tr.IllegalAction as exc:
            assert after == str(exc)
        if code in legal_codes or isinstance(after, str):
            continue
        stack = wire.get("stack")
        stacks = state.stacks[state.to_move]
        assert wire["type"] in ("build", "end_turn", "play_card") and isinstance(stack, int)
        assert any(stacks[i] == stacks[stack] for i in range(stack)), f"unlisted {wire} applied"


@pytest.mark.parametrize(("edition", "master", "deck"), CONFIGS)
def test_every_listed_action_round_trips(edition: str, master: bool, deck: str | None) -> None:
    total = sum(play_checking(edition, master, deck, 2 + g % 3, g) for g in range(GAMES_PER_CONFIG))
    assert total > GAMES_PER_CONFIG * 100


def test_keep_card_choices_have_distinct_codes() -> None:
    """All (card, rest, order) choices of a personal-deck buy."""
    state = tr.apply(pos(edition="rio_grande", decks=[["jump", "climb_two", "diagonal", "six_ap"], ["jump"]],
                         knights={"C3": 0, "F6": 1}, king="D1"),
                     {"type": "buy_card"})
    legal = tr.legal_actions(state)
    assert {a["type"] for a in legal} == {"keep_card"}
    assert len(legal) == 3 * 2 * 2  # keep one of 3 seen cards, rest top or bottom, 2 orders of the other two
    got = tr.legal_codes(state)
    assert len(set(got)) == len(got)
    assert [tr.decode(state, c) for c in got] == legal


def test_the_numbering_is_fixed() -> None:
    """Published numbers: changing any of these breaks stored OpenSpiel data and the OpenSpiel game's action space."""
    assert tr.NUM_CODES == 32768
    assert codes.code_of({"type": "place_foundation", "at": "A1"}) == 0
    assert codes.code_of({"type": "place_foundation", "at": "B1"}) == 1
    assert codes.code_of({"type": "place_start_knight", "at": "H8"}) == 127
    assert codes.code_of({"type": "place_king", "at": "A2"}) == 136
    assert codes.code_of({"type": "place_knight", "at": "C1"}) == 194
    assert codes.code_of({"type": "move_knight", "from": "B1", "to": "A1"}) == 256 + 64
    assert codes.code_of({"type": "build", "at": "H8", "stack": 3}) == 4607
    assert codes.code_of({"type": "buy_card"}) == 4608
    assert codes.code_of({"type": "advance_track"}) == 4609
    assert codes.code_of({"type": "end_turn", "stack": 2, "spread": [0, 0]}) == 4612
    assert codes.code_of({"type": "move_king", "to": None}) == 4614
    assert codes.code_of({"type": "move_king", "to": "H8"}) == 4678
    assert codes.code_of({"type": "play_card", "card": "climb_two", "from": "A1", "to": "A1"}) == 4679
    assert codes.code_of({"type": "play_card", "card": "block_under_knight", "at": "A1", "stack": 0}) == 8775
    assert codes.code_of({"type": "play_card", "card": "extra_block", "at": "A1"}) == 9031
    assert codes.code_of({"type": "play_card", "card": "six_ap"}) == 17287
    assert codes.code_of({"type": "play_card", "card": "seven_ap"}) == 17288
    assert codes.code_of({"type": "play_card", "card": "jump", "from": "H8", "to": "H8"}) == 29576
    assert codes.code_of({"type": "keep_card", "card": "climb_two", "rest": "top", "order": []}) == 29577
    assert codes.code_of({"type": "keep_card", "card": "jump", "rest": "bottom",
                          "order": ["jump", "jump"]}) == 31996
    for code in range(codes.KEEP_CARD_END):  # every code decodes to a wire form that encodes back to it
        if code >= codes.KEEP_CARD and (code - codes.KEEP_CARD) % 121 // 11 == 0 and (code - codes.KEEP_CARD) % 11:
            with pytest.raises(codes.NoCode):
                codes.wire_of(code)
            continue
        assert codes.code_of(codes.wire_of(code)) == code


def test_variants_map_to_the_canonical_code_or_are_refused() -> None:
    state = pos(knights={"C3": 0, "F6": 1}, king="D1", stacks=[[2, 2, 3, 1], [2, 2, 2, 2]])
    build = next(a for a in tr.legal_actions(state) if a["type"] == "build" and a["stack"] == 0)
    built = tr.apply(state, build)
    # once the turn's stack is fixed, a build or end_turn without "stack" is the listed one
    again = next(a for a in tr.legal_actions(built) if a["type"] == "build")
    assert tr.encode(built, {k: v for k, v in again.items() if k != "stack"}) == codes.code_of(again)
    end = next(a for a in tr.legal_actions(built) if a["type"] == "end_turn")
    assert tr.encode(built, {"type": "end_turn"}) == codes.code_of(end)
    # stack 1 has the same height as stack 0: apply takes it, but no code stands for it
    later = dict(build, stack=1)
    tr.apply(state, later)
    with pytest.raises(tr.IllegalAction, match="no listed action code"):
        tr.encode(state, later)
    # apply_code takes the code of that variant, as apply takes the wire form
    assert tr.apply_code(state, codes.code_of(later)) == tr.apply(state, later)
    # another legal spread: apply takes it, encode refuses it
    assert end["spread"] == [1, 0, 0]
    other = dict(end, spread=[0, 0, 1])
    tr.apply(built, other)
    with pytest.raises(tr.IllegalAction, match="no listed action code"):
        tr.encode(built, other)
    # illegal actions get the rule's message, unknown codes a clear one
    with pytest.raises(tr.IllegalAction, match="free square"):
        tr.encode(state, {"type": "place_knight", "at": "A8"})
    with pytest.raises(tr.IllegalAction):
        tr.apply_code(state, codes.code_of({"type": "move_king", "to": None}))
    with pytest.raises(tr.IllegalAction, match="action codes"):
        tr.apply_code(state, tr.NUM_CODES)
