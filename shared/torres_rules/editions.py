"""Editions (docs/rules.md section 12) as named presets of options, and the per-player-count tables.

Like python-chess variants, an edition only changes the rules that differ; every option can also be set alone
(`new_game(..., edition="rio_grande", deck="common")`).
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any, Final

EDITIONS: Final = ("rio_grande", "ravensburger", "yucata")


@dataclass(frozen=True, slots=True)
class Options:
    """Every rule that differs between editions.

    deck: "personal" | "common" | "hand" (RULES 9; the master version forces "hand").
    personal_rest: "top_or_bottom" | "bottom" -- where the unkept cards of a personal-deck buy go.
    carry_over_blocks: leftover blocks of a player's last turn are kept for the next phase (RULES 4).
    king_mover_starts: the player who may move the king starts the next phase (RULES 7).
    jump_over: "any" figure or only a "foreign_knight" (card 10).
    master_diagonal_foundations: master foundations may touch diagonally (RULES 10).
    start_player: "seat0" or "random" (seeded; RULES 3).
    stack_choice: "player" (choose the stack, spread leftovers <= 3) or "largest" (Yucata: automatic).
    """

    deck: str = "personal"
    personal_rest: str = "top_or_bottom"
    carry_over_blocks: bool = True
    king_mover_starts: bool = True
    jump_over: str = "any"
    master_diagonal_foundations: bool = True
    start_player: str = "seat0"
    stack_choice: str = "player"

    def to_dict(self) -> dict[str, Any]:
        # Spelled out: dataclasses.asdict deep-copies and showed up in request profiles of the game service.
        return {
            "deck": self.deck,
            "personal_rest": self.personal_rest,
            "carry_over_blocks": self.carry_over_blocks,
            "king_mover_starts": self.king_mover_starts,
            "jump_over": self.jump_over,
            "master_diagonal_foundations": self.master_diagonal_foundations,
            "start_player": self.start_player,
            "stack_choice": self.stack_choice,
        }


_CHOICES: Final[dict[str, tuple[Any, ...]]] = {
    "deck": ("personal", "common", "hand"),
    "personal_rest": ("top_or_bottom", "bottom"),
    "carry_over_blocks": (True, False),
    "king_mover_starts": (True, False),
    "jump_over": ("any", "foreign_knight"),
    "master_diagonal_foundations": (True, False),
    "start_player": ("seat0", "random"),
    "stack_choice": ("player", "largest"),
}

PRESETS: Final[dict[str, Options]] = {
    "rio_grande": Options(),
    "ravensburger": Options(
        deck="common",
        personal_rest="bottom",
        carry_over_blocks=False,
        king_mover_starts=False,
        jump_over="foreign_knight",
        master_diagonal_foundations=False,
    ),
    "yucata": Options(start_player="random", stack_choice="largest"),
}

OPTION_NAMES: Final = tuple(f.name for f in fields(Options))
OPTION_CHOICES: Final = _CHOICES  # each option's values, for whoever documents them (the HTTP edge)


def make_options(edition: str, master: bool, overrides: dict[str, Any] | None = None) -> Options:
    """The options of an edition with single options overridden; raises ValueError naming a bad one."""
    if edition not in PRESETS:
        raise ValueError(f"unknown edition {edition!r}: expected one of {', '.join(EDITIONS)}")
    options = PRESETS[edition]
    for name, value in (overrides or {}).items():
        if name not in _CHOICES:
            raise ValueError(f"unknown option {name!r}: expected one of {', '.join(OPTION_NAMES)}")
        if value not in _CHOICES[name] or type(value) is not type(_CHOICES[name][0]):
            raise ValueError(f"option {name} must be one of {list(_CHOICES[name])}, not {value!r}")
        options = replace(options, **{name: value})
    if master:
        options = replace(options, deck="hand")
    elif options.deck == "hand":
        raise ValueError("deck 'hand' belongs to the master version (RULES 9, 10)")
    return options


# Block stocks per phase (docs/rules.md section 4): stack heights, one stack used per turn. One table, one place.
BLOCK_STOCKS: Final[dict[int, tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]]] = {
    2: ((3, 3, 3, 3), (3, 3, 3, 3), (3, 3, 3, 3)),
    3: ((3, 3, 2, 2), (3, 3, 2), (3, 3, 2)),
    4: ((2, 2, 2, 2), (2, 2, 2), (2, 2, 2)),
}

TOTAL_BLOCKS: Final = 92
KNIGHTS_PER_PLAYER: Final = 6
AP_PER_TURN: Final = 5
STACK_CAP: Final = 3
MIN_CASTLES: Final = 6
PHASES: Final = 3
KING_BONUS: Final[tuple[int, ...]] = (5, 10, 15)  # at level 1 / 2 / 3 at the end of phase 1 / 2 / 3


def rounds_in_phase(players: int, phase: int) -> int:
    """Phase 1 has 4 rounds, phases 2 and 3 have 3; with 2 players every phase has 4 (RULES 4)."""
    return len(BLOCK_STOCKS[players][phase - 1])
