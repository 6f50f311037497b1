"""The words of the game on the wire: card kinds, master cards, stages, action types."""

from __future__ import annotations

from typing import Final

CARD_KINDS: Final[tuple[str, ...]] = (
    "climb_two",
    "block_under_knight",
    "extra_block",
    "castle_gate",
    "diagonal",
    "six_ap",
    "seven_ap",
    "move_block",
    "reposition_knight",
    "jump",
)
CARD_INDEX: Final[dict[str, int]] = {card: i for i, card in enumerate(CARD_KINDS)}
"""A card kind's index in CARD_KINDS (a dict look-up, not tuple.index: the rules ask for it per generated action)."""
COPIES_PER_KIND: Final = 4  # 40 action cards = 4 colours x the same 10 kinds

MASTER_CARDS: Final[tuple[str, ...]] = (
    "different_levels",
    "same_level",
    "one_line",
    "square",
    "edge",
    "castle_count",
    "diagonals",
    "together",
)

STAGES: Final[tuple[str, ...]] = ("setup", "turn", "keep_card", "move_king", "over")

ACTION_TYPES: Final[tuple[str, ...]] = (
    "place_foundation",
    "place_start_knight",
    "place_king",
    "place_knight",
    "move_knight",
    "build",
    "buy_card",
    "keep_card",
    "play_card",
    "advance_track",
    "end_turn",
    "move_king",
)
