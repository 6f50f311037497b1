"""Action cards (5.4, 5.5, 9): where they come from, buying and keeping, and each kind's legal uses.

`card_codes` generates the codes (codes.py) of every legal use of a card; `actions._play_card` carries one out.
Validation of a use that is not generated asks `why_not_*` for the rule's sentence.
"""

from __future__ import annotations

from typing import Final

from . import building, codes, moves
from .board import SQUARE_NAMES
from .names import CARD_INDEX
from .state import State

KNIGHT_CARDS: Final = frozenset({"climb_two", "castle_gate", "diagonal", "reposition_knight", "jump"})
"""The cards that move a knight; `knight_card_targets` generates each one's moves."""

_KNIGHT_CARD_RULES: Final = {
    "climb_two": "climb_two moves a knight to an orthogonally adjacent free square exactly 2 levels higher",
    "castle_gate": "castle_gate enters a castle next to the knight and leaves onto a free square next to it",
    "diagonal": "diagonal moves a knight one square diagonally onto a free square, climbing at most 1 level",
    "reposition_knight": "reposition_knight places the knight again next to another of your knights, "
    "at the same or a lower level",
    "jump": "jump leaps over one directly adjacent figure onto the free square beyond, at most 1 level higher",
}


# --- buying ----------------------------------------------------------------------------------------------------


def own_deck(state: State, seat: int) -> tuple[str, ...]:
    """The deck a seat buys from: its personal deck or the common deck (empty in the master version)."""
    if state.decks is not None:
        return state.decks[seat]
    return state.deck or ()


def why_not_buy(state: State) -> str | None:
    if state.options.deck == "hand":
        return "in the master version every card is in hand from the start: there is no buying"
    if state.cards_bought >= 2:
        return "at most 2 cards may be bought per turn"
    if state.ap_left < 1:
        return "buying a card costs 1 AP and no AP is left"
    if not own_deck(state, state.mover()):
        return "an empty deck cannot be bought from"
    return None


def keep_card_codes(state: State) -> list[object]:
    """Every (card kept, where the rest go, their order) after a personal-deck buy, as codes (codes.CODES)."""
    seen = state.seen or ()
    rests = (1,) if state.options.personal_rest == "bottom" else (0, 1)  # codes.RESTS: top 0, bottom 1
    out: list[object] = []
    for i, card in enumerate(seen):
        if card in seen[:i]:
            continue
        # the distinct orders of the other (at most 2) seen cards, by name as sorted permutations would list them,
        # numbered as codes.keep_card_code numbers them (0 for no card, else 1 + its kind)
        others = seen[:i] + seen[i + 1 :]
        if not others:
            orders = [0]
        elif len(others) == 1:
            orders = [(CARD_INDEX[others[0]] + 1) * codes.KEEP_PER_FIRST]
        else:
            low, high = (others[0], others[1]) if others[0] <= others[1] else (others[1], others[0])
            first, second = CARD_INDEX[low] + 1, CARD_INDEX[high] + 1
            orders = [first * codes.KEEP_PER_FIRST + second] if low == high else \
                [first * codes.KEEP_PER_FIRST + second, second * codes.KEEP_PER_FIRST + first]
        kept = codes.KEEP_CARD + CARD_INDEX[card] * codes.KEEP_PER_CARD
        for rest in rests:
            for order in orders:
                out.append(codes.CODES[kept + rest * codes.KEEP_PER_REST + order])
    return out


# --- playing ---------------------------------------------------------------------------------------------------


def playable_kinds(state: State) -> list[str]:
    """Cards in hand that may be played now: one per turn, none bought this turn (5.5)."""
    if state.card_played:
        return []
    hand = state.hands[state.mover()]  # sorted: copies of a kind stand together
    bought = state.bought_this_turn
    out: list[str] = []
    previous = ""
    for kind in hand:
        if kind != previous and (not bought or hand.count(kind) > bought.count(kind)):
            out.append(kind)
        previous = kind
    return out


def card_codes(state: State, card: str) -> list[object]:
    """The codes (from codes.CODES) of every legal use of a card for the player to move."""
    seat = state.mover()
    kind = CARD_INDEX[card]
    base = codes.PLAY_CARD_BASE[kind]
    table = codes.CODES
    out: list[object] = []
    if card in KNIGHT_CARDS:
        for frm in state.knight_squares(seat):
            row = base + frm * 64
            for to in knight_card_targets(state, card, frm):
                out.append(table[row + to])
    elif card == "block_under_knight":
        stacks = state.stacks[seat]
        choices = [i for i, h in enumerate(stacks) if h > 0 and h not in stacks[:i]]
        out = [table[base + i * 64 + at] for at in building.block_under_knight_squares(state, seat) for i in choices]
    elif card == "extra_block":
        if state.supply > 0:
            building.build_codes(state, base, out)
    elif card in ("six_ap", "seven_ap"):
        out = [table[base]]
    else:  # move_block
        for frm in range(64):
            if state.heights[frm]:
                row = base + frm * 64
                out += [table[row + to] for to in building.move_block_targets(state, frm)]
    return out


def knight_card_targets(state: State, card: str, frm: int) -> list[int]:
    """Where knight card `card` moves the knight on `frm`. A chain of direct calls, not a table of functions: the
    compiled build then makes a native call of each instead of a generic Python call."""
    if card == "climb_two":
        return moves.climb_two_squares(state, frm)
    if card == "castle_gate":
        return moves.castle_gate_squares(state, frm)
    if card == "diagonal":
        return moves.diagonal_squares(state, frm)
    if card == "reposition_knight":
        return moves.reposition_squares(state, frm)
    return moves.jump_squares(state, frm)


def why_not_knight_card(state: State, card: str, frm: int, to: int) -> str | None:
    """None if the knight card may move the knight on `frm` to `to`."""
    if state.knights[frm] != state.to_move:
        return f"{card} moves one of your own knights: none stands on {SQUARE_NAMES[frm]}"
    if to in knight_card_targets(state, card, frm):
        return None
    if card == "jump" and state.options.jump_over == "foreign_knight":
        return _KNIGHT_CARD_RULES[card] + " (this edition: over a foreign knight only, never the king or your own)"
    return f"{_KNIGHT_CARD_RULES[card]}: {SQUARE_NAMES[frm]} to {SQUARE_NAMES[to]} is not such a move"


def remove_one(cards: tuple[str, ...], card: str) -> tuple[str, ...]:
    i = cards.index(card)
    return cards[:i] + cards[i + 1 :]
