"""Torres rules engine: the pure, deterministic heart every service folds events through.

The public API is that of docs/rules-contract.md: `new_game`, `legal_actions`, `apply`, `IllegalAction`,
`State.to_position` / `from_position`, `scores`, `is_over`, `winner`, `view`; the castles and phase scorings
clients show (`explain.py`: `castles_of`, `scoring_breakdown`, `scored_between`, `phase_preview`); and the integer
action codes the engine runs on (`codes.py`: `legal_codes`, `apply_code`, `encode`, `decode`, `action_type`,
`NUM_CODES`), which bots and OpenSpiel use to avoid wire dicts. Everything else is internal and may change.

The same sources run compiled by mypyc (several times faster) or as plain Python; `_loader` chooses before
any other module loads, and `ENGINE_BUILD` says which ("compiled" or "pure").
"""

from __future__ import annotations

from ._loader import ENGINE_BUILD as ENGINE_BUILD
from .actions import IllegalAction, action_type, apply, apply_code, decode, encode, legal_actions, legal_codes
from .codes import NUM_CODES
from .editions import EDITIONS, Options
from .explain import castles_of, phase_preview, scored_between, scoring_breakdown
from .names import CARD_KINDS, MASTER_CARDS
from .render import action_text, board_text, status_text
from .state import InvalidPosition, State, from_position, to_position
from .turns import new_game
from .view import view


def scores(state: State) -> list[int]:
    """Each seat's score, by seat."""
    return list(state.scores)


def is_over(state: State) -> bool:
    """True after the third scoring (RULES 14)."""
    return state.stage == "over"


def winner(state: State) -> int | None:
    """The seat with the highest score once the game is over; the collision rule leaves no tie."""
    if state.stage != "over":
        return None
    return max(range(state.players), key=lambda seat: state.scores[seat])


__all__ = [
    "CARD_KINDS",
    "EDITIONS",
    "MASTER_CARDS",
    "NUM_CODES",
    "IllegalAction",
    "InvalidPosition",
    "Options",
    "State",
    "action_text",
    "action_type",
    "apply",
    "apply_code",
    "board_text",
    "castles_of",
    "decode",
    "encode",
    "from_position",
    "is_over",
    "legal_actions",
    "legal_codes",
    "new_game",
    "phase_preview",
    "scored_between",
    "scores",
    "scoring_breakdown",
    "status_text",
    "to_position",
    "view",
    "winner",
]
