"""Integer action codes: one fixed number per action `legal_actions` can list, so the engine, the bots and
OpenSpiel work with ints and build wire dicts only at the edge.

The numbering is public and frozen (OpenSpiel uses it as its action space): new actions get new numbers above
the last one, existing numbers never change meaning. A code names an action by its fields alone, the same in
every position, except `end_turn`, whose code names the stack used and means the default spread
(`building.default_spread`), which depends on the position. Squares are 0..63 (`board.py`: A1=0, B1=1, ..., H8=63),
card kinds are indices into `names.CARD_KINDS`, stacks are indices 0..3 into the mover's stacks.

    code range       action                                   code
    0 .. 63          place_foundation  at                     at
    64 .. 127        place_start_knight at                    64 + at
    128 .. 191       place_king        at                     128 + at
    192 .. 255       place_knight      at                     192 + at
    256 .. 4351      move_knight       from, to               256 + from * 64 + to
    4352 .. 4607     build             at, stack              4352 + stack * 64 + at
    4608             buy_card
    4609             advance_track
    4610 .. 4613     end_turn          stack (default spread) 4610 + stack
    4614             move_king         to null                (the king stays)
    4615 .. 4678     move_king         to                     4615 + to
    4679 .. 29576    play_card         by card kind, in CARD_KINDS order, from PLAY_CARD_BASE[kind]:
                       climb_two, castle_gate, diagonal, move_block, reposition_knight, jump: from * 64 + to
                       block_under_knight: stack * 64 + at;  extra_block: at;  six_ap, seven_ap: one code
    29577 .. 31996   keep_card         card, rest, order      29577 + card * 242 + rest * 121 + first * 11 + second
                       (rest: top 0, bottom 1; order = [first, second] top first, each 0 = none or 1 + kind)
    31997 .. 32767   unused, reserved for actions added later (NUM_CODES stays 32768)

Which wire forms have a code: exactly the canonical forms `legal_actions` lists (`build` and `end_turn` always
with "stack", `end_turn` with its default spread, `keep_card` with "rest" and "order"). `apply` also accepts
variants; `encode` (actions.py) maps those that mean the same action (a `build`/`end_turn` without "stack" once
the turn's stack is fixed, a `keep_card` without "rest" where only the bottom is allowed or without "order") to
the canonical code, and refuses the rest with IllegalAction: an `end_turn` with another spread, a `build` or
`end_turn` naming a later stack of the same height as a listed one (a different position results, but one no
code stands for).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from .board import SQUARE_NAMES, parse_square
from .names import CARD_KINDS

MAX_STACKS: Final = 4  # editions.BLOCK_STOCKS has at most 4 stacks per stock; from_position checks it

PLACE_FOUNDATION: Final = 0
PLACE_START_KNIGHT: Final = 64
PLACE_KING: Final = 128
PLACE_KNIGHT: Final = 192
MOVE_KNIGHT: Final = 256
BUILD: Final = 4352
BUY_CARD: Final = 4608
ADVANCE_TRACK: Final = 4609
END_TURN: Final = 4610
MOVE_KING_STAY: Final = 4614
MOVE_KING: Final = 4615
PLAY_CARD: Final = 4679
KEEP_CARD: Final = 29577
KEEP_CARD_END: Final = 31997  # first unused code
# keep_card = KEEP_CARD + card * KEEP_PER_CARD + rest * KEEP_PER_REST + first * KEEP_PER_FIRST + second, where first
# and second are 0 for no card, else 1 + the card's kind index
KEEP_PER_CARD: Final = 242
KEEP_PER_REST: Final = 121
KEEP_PER_FIRST: Final = 11
NUM_CODES: Final = 32768  # fixed upper bound: every code is in range(NUM_CODES)

# Every code as a ready-made int object, for the lists of codes the engine hands out. CPython caches only the
# ints -5..256, so building a list of codes from arithmetic allocates (and later frees) one int object per code:
# in the compiled build that was the largest single cost of `legal_codes`. Typed `object` so that mypyc hands the
# object over as it is instead of unboxing it to a C integer and boxing it again.
CODES: Final[tuple[object, ...]] = tuple(range(KEEP_CARD_END))

# Card kinds by how their uses are coded (indices into CARD_KINDS).
CLIMB_TWO: Final = 0
BLOCK_UNDER_KNIGHT: Final = 1
EXTRA_BLOCK: Final = 2
CASTLE_GATE: Final = 3
DIAGONAL: Final = 4
SIX_AP: Final = 5
SEVEN_AP: Final = 6
MOVE_BLOCK: Final = 7
REPOSITION_KNIGHT: Final = 8
JUMP: Final = 9
FROM_TO_CARDS: Final[tuple[int, ...]] = (CLIMB_TWO, CASTLE_GATE, DIAGONAL, MOVE_BLOCK, REPOSITION_KNIGHT, JUMP)


def _card_sizes() -> tuple[int, ...]:
    sizes = []
    for kind in range(len(CARD_KINDS)):
        if kind == BLOCK_UNDER_KNIGHT:
            sizes.append(MAX_STACKS * 64)
        elif kind == EXTRA_BLOCK:
            sizes.append(64)
        elif kind in (SIX_AP, SEVEN_AP):
            sizes.append(1)
        else:
            sizes.append(64 * 64)
    return tuple(sizes)


def _card_bases() -> tuple[int, ...]:
    bases = []
    base = PLAY_CARD
    for size in _card_sizes():
        bases.append(base)
        base += size
    assert base == KEEP_CARD, "the play_card codes end where keep_card's begin"
    return tuple(bases)


PLAY_CARD_BASE: Final[tuple[int, ...]] = _card_bases()  # [card kind index] -> first code of its uses
RESTS: Final[tuple[str, ...]] = ("top", "bottom")  # typed variable-length: mypyc boxes fixed ones per use


def card_code(kind: int, payload: int) -> int:
    """A play_card use: payload is from * 64 + to, stack * 64 + at, at, or 0 (six_ap, seven_ap)."""
    return PLAY_CARD_BASE[kind] + payload


def card_use(code: int) -> tuple[int, int, int]:
    """(card kind, first, second) of a play_card code: from and to squares, at and stack (block_under_knight),
    at and 0 (extra_block), 0 and 0 (six_ap, seven_ap)."""
    kind = len(CARD_KINDS) - 1
    while PLAY_CARD_BASE[kind] > code:
        kind -= 1
    payload = code - PLAY_CARD_BASE[kind]
    if kind == BLOCK_UNDER_KNIGHT:
        return kind, payload & 63, payload >> 6
    return kind, payload >> 6 if kind in FROM_TO_CARDS else payload, payload & 63 if kind in FROM_TO_CARDS else 0


def keep_card_code(card: int, rest: int, order: tuple[int, ...]) -> int:
    """card and order as CARD_KINDS indices (order: at most 2, top first), rest 0 = top, 1 = bottom."""
    first = order[0] + 1 if len(order) > 0 else 0
    second = order[1] + 1 if len(order) > 1 else 0
    return KEEP_CARD + card * KEEP_PER_CARD + rest * KEEP_PER_REST + first * KEEP_PER_FIRST + second


# --- wire form -> code ------------------------------------------------------------------------------------------


class NoCode(ValueError):
    """A wire form no code stands for: malformed, or a field missing that the canonical form has."""


def _sq(action: Mapping[str, Any], field: str) -> int:
    sq = parse_square(action.get(field))
    if sq is None:
        raise NoCode(f"{action.get('type')}: {field} must be a square \"A1\"..\"H8\", not {action.get(field)!r}")
    return sq


def _stack(action: Mapping[str, Any]) -> int:
    index = action.get("stack")
    if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < MAX_STACKS:
        raise NoCode(f"{action.get('type')}: stack must be an index 0..{MAX_STACKS - 1}, not {index!r}")
    return index


def _kind(name: object) -> int:
    if not isinstance(name, str) or name not in CARD_KINDS:
        raise NoCode(f"card must be one of {', '.join(CARD_KINDS)}, not {name!r}")
    return CARD_KINDS.index(name)


def code_of(action: Mapping[str, Any]) -> int:
    """The code of a complete wire form, by its fields alone (no position): `end_turn`'s spread is not looked
    at (its code means the default spread; `actions.encode` checks it against the position). Raises NoCode."""
    kind = action.get("type")
    if kind == "move_knight":
        return MOVE_KNIGHT + _sq(action, "from") * 64 + _sq(action, "to")
    if kind == "build":
        return BUILD + _stack(action) * 64 + _sq(action, "at")
    if kind == "place_knight":
        return PLACE_KNIGHT + _sq(action, "at")
    if kind == "end_turn":
        return END_TURN + _stack(action)
    if kind == "buy_card":
        return BUY_CARD
    if kind == "advance_track":
        return ADVANCE_TRACK
    if kind == "play_card":
        card = _kind(action.get("card"))
        if card == BLOCK_UNDER_KNIGHT:
            return card_code(card, _stack(action) * 64 + _sq(action, "at"))
        if card == EXTRA_BLOCK:
            return card_code(card, _sq(action, "at"))
        if card in (SIX_AP, SEVEN_AP):
            return card_code(card, 0)
        return card_code(card, _sq(action, "from") * 64 + _sq(action, "to"))
    if kind == "keep_card":
        rest = action.get("rest")
        order = action.get("order")
        if rest not in RESTS:
            raise NoCode(f"keep_card: rest must be \"top\" or \"bottom\", not {rest!r}")
        if not isinstance(order, list) or len(order) > 2:
            raise NoCode(f"keep_card: order lists at most 2 cards, not {order!r}")
        return keep_card_code(_kind(action.get("card")), RESTS.index(rest), tuple(_kind(c) for c in order))
    if kind == "move_king":
        if "to" not in action:
            raise NoCode("move_king needs \"to\"")
        return MOVE_KING_STAY if action["to"] is None else MOVE_KING + _sq(action, "to")
    if kind == "place_foundation":
        return PLACE_FOUNDATION + _sq(action, "at")
    if kind == "place_start_knight":
        return PLACE_START_KNIGHT + _sq(action, "at")
    if kind == "place_king":
        return PLACE_KING + _sq(action, "at")
    raise NoCode(f"unknown action type {kind!r}")


# --- code -> wire form ------------------------------------------------------------------------------------------


def _make(code: int) -> dict[str, Any]:
    if code < 0:
        raise NoCode(f"action codes are 0..{KEEP_CARD_END - 1}, not {code}")
    if code < PLACE_START_KNIGHT:
        return {"type": "place_foundation", "at": SQUARE_NAMES[code]}
    if code < PLACE_KING:
        return {"type": "place_start_knight", "at": SQUARE_NAMES[code - PLACE_START_KNIGHT]}
    if code < PLACE_KNIGHT:
        return {"type": "place_king", "at": SQUARE_NAMES[code - PLACE_KING]}
    if code < MOVE_KNIGHT:
        return {"type": "place_knight", "at": SQUARE_NAMES[code - PLACE_KNIGHT]}
    if code < BUILD:
        frm, to = divmod(code - MOVE_KNIGHT, 64)
        return {"type": "move_knight", "from": SQUARE_NAMES[frm], "to": SQUARE_NAMES[to]}
    if code < BUY_CARD:
        stack, at = divmod(code - BUILD, 64)
        return {"type": "build", "at": SQUARE_NAMES[at], "stack": stack}
    if code == BUY_CARD:
        return {"type": "buy_card"}
    if code == ADVANCE_TRACK:
        return {"type": "advance_track"}
    if code < MOVE_KING_STAY:
        return {"type": "end_turn", "stack": code - END_TURN}
    if code == MOVE_KING_STAY:
        return {"type": "move_king", "to": None}
    if code < PLAY_CARD:
        return {"type": "move_king", "to": SQUARE_NAMES[code - MOVE_KING]}
    if code < KEEP_CARD:
        kind = max(k for k in range(len(CARD_KINDS)) if PLAY_CARD_BASE[k] <= code)
        payload = code - PLAY_CARD_BASE[kind]
        out: dict[str, Any] = {"type": "play_card", "card": CARD_KINDS[kind]}
        if kind == BLOCK_UNDER_KNIGHT:
            out["at"], out["stack"] = SQUARE_NAMES[payload % 64], payload // 64
        elif kind == EXTRA_BLOCK:
            out["at"] = SQUARE_NAMES[payload]
        elif kind not in (SIX_AP, SEVEN_AP):
            out["from"], out["to"] = SQUARE_NAMES[payload // 64], SQUARE_NAMES[payload % 64]
        return out
    if code < KEEP_CARD_END:
        card, rest_order = divmod(code - KEEP_CARD, KEEP_PER_CARD)
        rest, pair = divmod(rest_order, KEEP_PER_REST)
        first, second = divmod(pair, KEEP_PER_FIRST)
        if second and not first:
            raise NoCode(f"code {code} is no action: a keep_card order has no second card without a first")
        order = [CARD_KINDS[c - 1] for c in (first, second) if c]
        return {"type": "keep_card", "card": CARD_KINDS[card], "rest": RESTS[rest], "order": order}
    raise NoCode(f"action codes are 0..{KEEP_CARD_END - 1}, not {code}")


# The wire dict of every code, made on first use by `wire_of`. Each distinct action's dict is made once and handed
# out as a copy: one allocation and a memcpy, the cheapest fresh dict in both builds. Only the dicts without a
# list (all but keep_card) may be handed out by a plain `.copy()`, as `actions.legal_actions` does.
WIRE: Final[list[dict[str, Any] | None]] = [None] * KEEP_CARD_END


def wire_of(code: int) -> dict[str, Any]:
    """A fresh wire form of a code (`end_turn` without its spread, which the position gives). Raises NoCode
    outside the code space."""
    if not 0 <= code < KEEP_CARD_END:
        raise NoCode(f"action codes are 0..{KEEP_CARD_END - 1}, not {code}")
    made = WIRE[code]
    if made is None:
        made = WIRE[code] = _make(code)
    out = made.copy()
    if code >= KEEP_CARD:
        out["order"] = list(made["order"])  # the only list a listed action carries besides end_turn's spread
    return out


__all__ = ["NUM_CODES", "NoCode", "code_of", "wire_of"]
