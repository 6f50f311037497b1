"""Blocks: building (5.3), the turn's stack and the spread of leftovers, and the block cards of section 9."""

from __future__ import annotations

from collections.abc import Sequence

from .board import NEIGHBOURS, SQUARE_NAMES, pieces
from .castles import NO_CASTLE, Castles, analyse
from .codes import CODES
from .editions import MIN_CASTLES, STACK_CAP
from .state import NO_FIGURE, State


def _name(sq: int) -> str:
    return SQUARE_NAMES[sq]


def build_codes(state: State, base: int, out: list[object]) -> None:
    """5.3: a block goes on a free square of the board's build squares (figures aside: `Castles.build_squares`).
    Appends `CODES[base + square]` for each to `out`, `base` being the code of a stack's build on A1 or of
    extra_block's: no list of squares first, which costs an append and, compiled, a boxed int per square."""
    knights, king = state.knights, state.king
    for sq in state.castles.build_squares():
        if knights[sq] == NO_FIGURE and sq != king:
            out.append(CODES[base + sq])


def may_build(state: State, sq: int) -> bool:
    """One square of `build_codes`, without listing them all (for `apply`)."""
    return state.castles.buildable_at()[sq] and state.is_free(sq)


def why_not_build(state: State, sq: int) -> str:
    """The rule a block on `sq` breaks."""
    if not state.is_free(sq):
        return f"a block is never placed on a square where a figure stands: {_name(sq)} is occupied"
    castles = state.castles
    if state.heights[sq]:
        return (
            f"a stack may be at most as high as its castle's base area: {_name(sq)} is level {state.heights[sq]} "
            f"in a castle of base area {castles.area_of(sq)}"
        )
    if castles.ground_extension(sq) is None:
        return f"castles never join: a block on {_name(sq)} would touch two castles"
    return f"a block must extend an existing castle: {_name(sq)} touches none"


def with_block(heights: tuple[int, ...], sq: int, delta: int = 1) -> tuple[int, ...]:
    hs = list(heights)
    hs[sq] += delta
    return tuple(hs)


# --- the turn's stack -----------------------------------------------------------------------------------------


def automatic_stack(stacks: tuple[int, ...]) -> int:
    """Yucata: the turn's stack is the largest (the first of equals)."""
    return max(range(len(stacks)), key=lambda i: (stacks[i], -i))


def turn_stack(state: State) -> int | None:
    """The stack this turn builds from: the chosen one, the automatic one (Yucata), or None if still open."""
    if state.stack_chosen is not None:
        return state.stack_chosen
    if state.options.stack_choice == "largest" and state.stacks[state.mover()]:
        return automatic_stack(state.stacks[state.mover()])
    return None


def stack_choices(state: State) -> list[int]:
    """Stacks a build may still come from: the turn's stack, or one index per distinct height while open."""
    stacks = state.stacks[state.mover()]
    fixed = turn_stack(state)
    if fixed is not None:
        return [fixed] if stacks[fixed] > 0 else []
    seen: set[int] = set()
    out = []
    for i, height in enumerate(stacks):
        if height > 0 and height not in seen:
            seen.add(height)
            out.append(i)
    return out


def spread_capacity(remaining: tuple[int, ...]) -> int:
    return sum(max(0, STACK_CAP - h) for h in remaining)


def default_spread(remaining: tuple[int, ...], leftover: int, capped: bool) -> list[int]:
    """Leftover blocks onto the remaining stacks in order: each up to 3 (capped), or all onto the next stack
    (Yucata with 3-4 players). Whatever does not fit goes back to the supply."""
    spread = [0] * len(remaining)
    if not remaining:
        return spread
    if not capped:
        spread[0] = leftover
        return spread
    for i, h in enumerate(remaining):
        take = min(leftover, max(0, STACK_CAP - h))
        spread[i] = take
        leftover -= take
    return spread


def spread_is_capped(state: State) -> bool:
    """Yucata lets 3-4 player leftovers pile onto the next stack without the cap of 3."""
    return not (state.options.stack_choice == "largest" and state.players >= 3)


def why_not_spread(remaining: tuple[int, ...], leftover: int, spread: list[int]) -> str | None:
    """None if a player's spread is legal (5.3): no stack above 3, no new stack, as many as fit placed."""
    if len(spread) != len(remaining):
        return f"the spread lists one number per remaining stack: {len(remaining)} expected, got {len(spread)}"
    for h, add in zip(remaining, spread, strict=True):
        if add < 0:
            return "a spread cannot take blocks off a stack"
        if h + add > STACK_CAP:
            return f"leftover blocks may not raise a stack above {STACK_CAP}"
    must = min(leftover, spread_capacity(remaining))
    if sum(spread) != must:
        return (
            f"as many leftover blocks as fit must be placed: {must} of {leftover} fit, the spread places "
            f"{sum(spread)}"
        )
    return None


# --- block cards (section 9) -----------------------------------------------------------------------------------


def block_under_knight_squares(state: State, seat: int) -> list[int]:
    """Card 2: squares of the seat's knights that may get a block slid under them."""
    castles = state.castles
    out = []
    for sq in state.knight_squares(seat):
        if state.heights[sq]:
            if state.heights[sq] + 1 <= castles.area_of(sq):
                out.append(sq)
        elif castles.ground_extension(sq) is not None:
            out.append(sq)
    return out


def why_not_block_under_knight(state: State, sq: int) -> str:
    if state.knights[sq] != state.to_move:
        return f"block_under_knight slides a block under one of your own knights: none stands on {_name(sq)}"
    if state.heights[sq]:
        return (
            f"a stack may be at most as high as its castle's base area: {_name(sq)} is level "
            f"{state.heights[sq]} in a castle of base area {state.castles.area_of(sq)}"
        )
    return f"castles never join: a block on {_name(sq)} would touch two castles"


def move_block_targets(state: State, frm: int) -> list[int]:
    """Card 8: where the free top block of `frm` may go, judged by the board the move leaves (9.8): no castle
    split, none joined, no stack above its base area, at least 6 castles; a single-block castle may move whole
    and vanish into another castle.

    With the block lifted, a destination is legal exactly where a block could be built (on top within the base
    area, or on ground next to exactly one castle) or on ground touching no castle (a new one), given enough
    castles -- unless lifting the block split or overfilled its castle: then only a ground square next to what
    remains can mend it, and those few are judged on the full result."""
    heights = state.heights
    if not heights[frm] or not state.is_free(frm):
        return []
    knights, king = state.knights, state.king
    castles = state.castles
    if heights[frm] > 1:  # the square stays a castle square: membership and areas are unchanged
        count = castles.count
        targets: Sequence[int] = castles.landing_squares() if count >= MIN_CASTLES else castles.lonely_squares()
    else:
        c = castles.of[frm]
        rest = set(castles.members[c])
        rest.discard(frm)
        piece, split = pieces(rest)
        if split > 1 or any(heights[sq] > len(rest) for sq in rest):
            near = {n for sq in rest for n in NEIGHBOURS[sq] if not heights[n]}
            if split > 1:  # only a square next to every piece can join them again (any other leaves the castle
                # split, which move_block_problem would refuse after a full analysis): judge those alone
                near = {sq for sq in near if len({piece[n] for n in NEIGHBOURS[sq] if n in piece}) == split}
            return sorted(to for to in near if move_block_problem(state, frm, to) is None)
        count = castles.count - (not rest)
        targets = _lifted_targets(castles, frm, rest, count >= MIN_CASTLES)
    if count + 1 < MIN_CASTLES:
        return []
    return [to for to in targets if to != frm and knights[to] == NO_FIGURE and to != king]


def _lifted_targets(castles: Castles, frm: int, rest: set[int], landing: bool) -> list[int]:
    """The landing squares (`landing`) or else the lonely squares of the board with the single block on `frm`
    lifted off, its castle still in one piece: the board's own, re-decided only where the lift can change them
    (`frm`, its neighbours and the rest of its castle, which lost one square of base area)."""
    heights, of, areas = castles.heights, castles.of, castles.areas
    own = of[frm]
    affected = {frm, *NEIGHBOURS[frm], *rest}
    out = set(castles.landing_squares() if landing else castles.lonely_squares()) - affected
    for sq in affected:
        if sq == frm:
            continue
        if heights[sq]:
            if landing and heights[sq] < (len(rest) if of[sq] == own else areas[of[sq]]):
                out.add(sq)
            continue
        near = {of[n] for n in NEIGHBOURS[sq] if n != frm}
        near.discard(NO_CASTLE)
        if len(near) <= (1 if landing else 0):
            out.add(sq)
    return sorted(out)


def move_block_problem(state: State, frm: int, to: int) -> str | None:
    """The rule a move_block from `frm` to `to` breaks, judged on the board it leaves, or None (9.8)."""
    heights = state.heights
    if not heights[frm]:
        return f"move_block moves a block of a castle: {_name(frm)} has none"
    if not state.is_free(frm):
        return f"only a free block may be moved: a figure stands on {_name(frm)}"
    if to == frm:
        return "move_block must move the block to another square"
    if not state.is_free(to):
        return f"a block is never placed on a square where a figure stands: {_name(to)} is occupied"
    final = with_block(with_block(heights, frm, -1), to)
    before = state.castles
    after = analyse(final)
    for members in before.members:
        if len({after.of[sq] for sq in members if final[sq]}) > 1:
            return f"move_block may not split a castle: moving the block from {_name(frm)} splits its castle"
    for members in after.members:
        if len({before.of[sq] for sq in members} - {NO_CASTLE}) > 1:
            return f"castles never join: a block on {_name(to)} would join two castles"
    for sq in after.members[after.of[to]] + (after.members[after.of[frm]] if final[frm] else ()):
        if final[sq] > after.area_of(sq):
            return (
                f"a stack may be at most as high as its castle's base area: after the move {_name(sq)} has height "
                f"{final[sq]} in a castle of base area {after.area_of(sq)}"
            )
    if before.of[frm] != NO_CASTLE and not final[frm]:
        for sq in before.members[before.of[frm]]:
            if final[sq] > after.area_of(sq):
                return (
                    f"a stack may be at most as high as its castle's base area: without the block from {_name(frm)} "
                    f"{_name(sq)} has height {final[sq]} in a castle of base area {after.area_of(sq)}"
                )
    if after.count < MIN_CASTLES:
        return f"there are never fewer than {MIN_CASTLES} castles: the move would leave {after.count}"
    return None


def why_not_move_block(state: State, frm: int, to: int) -> str:
    return move_block_problem(state, frm, to) or "move_block cannot move that block there"
