"""Rebuild a full State from a seat's view by sampling what the seat cannot see (determinization).

RULES 13: the seat sees its own hand (and, while buying, the cards it looks at), the other hands'
sizes and every deck's size, never a deck's order. A sample keeps every visible fact and fills the
rest uniformly from the cards that could be there: each player owns one card of each kind with a
personal deck or in the master version, and a common deck holds four of each kind.

Cards already played are public (RULES 13, the view's ``played``): a sample never puts one back in a
hand or a deck. (Before the views listed them, samples did; ``docs/ai.md`` has the tournament figures.)
"""

from __future__ import annotations

import random
from typing import Any

import torres_rules as tr

from .base import View

_VIEW_ONLY = ("seat", "hand", "hand_sizes", "deck_sizes", "deck_size", "seen", "seen_count", "bought_this_turn",
              "cards_bought_total")
COPIES_PER_KIND = 4


def sample_state(view: View, rng: random.Random) -> tr.State:
    """One full State consistent with ``view`` (the same view for the same seat), hidden parts at random."""
    position: dict[str, Any] = {k: v for k, v in view.items() if k not in _VIEW_ONLY}
    seat: int = view["seat"]
    players: int = view["players"]
    mode = view["options"]["deck"]
    to_move = view.get("to_move")
    own_turn = to_move == seat
    hand_sizes: list[int] = view["hand_sizes"]
    seen: list[str] | None = view.get("seen") if own_turn else None
    seen_count = view.get("seen_count") or 0
    kinds = list(tr.CARD_KINDS)
    played: list[list[str]] = view.get("played") or [[] for _ in range(players)]

    hands: list[list[str]] = [[] for _ in range(players)]
    decks: list[list[str]] | None = None
    deck: list[str] | None = None
    sampled_seen: list[str] | None = None
    hands[seat] = list(view["hand"])

    if mode == "common":
        pool = [k for k in kinds for _ in range(COPIES_PER_KIND)]
        for card in hands[seat] + (seen or []) + [c for cards in played for c in cards]:
            pool.remove(card)
        rng.shuffle(pool)
        for other in range(players):
            if other != seat:
                hands[other] = [pool.pop() for _ in range(hand_sizes[other])]
        deck = [pool.pop() for _ in range(view["deck_size"] or 0)]
    else:
        deck_sizes = view.get("deck_sizes") or [0] * players
        decks = [] if mode == "personal" else None
        for owner in range(players):
            known = set(played[owner]) | (set(hands[owner]) if owner == seat else set())
            if owner == seat and seen:
                known |= set(seen)
            free = [k for k in kinds if k not in known]
            rng.shuffle(free)
            if owner != seat:
                hands[owner] = [free.pop() for _ in range(hand_sizes[owner])]
            if stage_is_keep_card(view) and owner == to_move and owner != seat:
                sampled_seen = [free.pop() for _ in range(seen_count)]
            if decks is not None:
                decks.append([free.pop() for _ in range(deck_sizes[owner])])

    if stage_is_keep_card(view):
        position["seen"] = list(seen) if seen is not None else sampled_seen
    bought = view.get("bought_this_turn")
    if bought is None and to_move is not None and to_move != seat:
        bought = []  # the mover's purchases this turn are secret; none is a consistent guess
    position["bought_this_turn"] = list(bought or [])
    position["hands"] = hands
    position["decks"] = decks
    position["deck"] = deck
    return tr.from_position(position)


def stage_is_keep_card(view: View) -> bool:
    return view.get("stage") == "keep_card"
