"""What a seat may see (RULES 13): its own hand and the cards it is looking at; of others only counts; of every
deck only its size. Everything else is public, the cards played so far by each seat included (``played``);
of the cards bought, only how many each seat bought (``cards_bought_total``)."""

from __future__ import annotations

from typing import Any

from .names import CARD_KINDS
from .state import State, to_position


def view(state: State, seat: int | None = None) -> dict[str, Any]:
    """The position as `seat` sees it; seat None is a spectator. Built from the full position by removing
    secrets, so a new secret field must be handled here explicitly (the hidden-information test fails
    otherwise)."""
    if seat is not None and not (isinstance(seat, int) and 0 <= seat < state.players):
        raise ValueError(f"seat must be one of 0..{state.players - 1} or None, not {seat!r}")
    position = to_position(state)
    hands = position.pop("hands")
    decks = position.pop("decks")
    deck = position.pop("deck")
    seen = position.pop("seen")
    bought = position.pop("bought_this_turn")
    own_turn = seat is not None and seat == state.to_move
    position["seat"] = seat
    position["hand"] = hands[seat] if seat is not None else None
    position["hand_sizes"] = [len(h) for h in hands]
    position["deck_sizes"] = None if decks is None else [len(d) for d in decks]
    position["deck_size"] = None if deck is None else len(deck)
    position["seen"] = seen if own_turn else None
    position["seen_count"] = None if seen is None else len(seen)
    position["bought_this_turn"] = bought if own_turn else None
    start = len(CARD_KINDS) if state.options.deck == "hand" else 0  # the master version deals every card
    buying = state.to_move if state.stage == "keep_card" else None  # its card is not in its hand yet
    position["cards_bought_total"] = [len(h) + len(p) - start + (owner == buying)
                                      for owner, (h, p) in enumerate(zip(hands, position["played"], strict=True))]
    return position
