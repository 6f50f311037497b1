"""Actions in wire form: the generator of legal actions and `apply`, which validates and carries one out.

`legal_actions` generates moves rather than filtering candidates (as python-chess does). `apply` checks the
one action it is given and, when it is illegal, raises IllegalAction with the sentence of the rule it breaks.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Final

from . import building, cards, codes, moves, turns, wire
from .board import SQUARE_NAMES, parse_square
from .editions import KNIGHTS_PER_PLAYER
from .names import CARD_KINDS
from .scoring import advance
from .state import NO_FIGURE, State, replaced

Action = dict[str, Any]


class IllegalAction(ValueError):
    """An action the rules forbid in this position; the message names the rule."""


# Fields each action type may carry (besides "type"); a field outside these is an error, not ignored.
_FIELDS: Final[dict[str, frozenset[str]]] = {
    "place_foundation": frozenset({"at"}),
    "place_start_knight": frozenset({"at"}),
    "place_king": frozenset({"at"}),
    "place_knight": frozenset({"at"}),
    "move_knight": frozenset({"from", "to"}),
    "build": frozenset({"at", "stack"}),
    "buy_card": frozenset(),
    "keep_card": frozenset({"card", "rest", "order"}),
    "play_card": frozenset({"card", "from", "to", "at", "stack"}),
    "advance_track": frozenset(),
    "end_turn": frozenset({"stack", "spread"}),
    "move_king": frozenset({"to"}),
}

_ALLOWED: Final = {kind: fields | {"type"} for kind, fields in _FIELDS.items()}

_STAGE_OF: Final = {
    "place_foundation": "setup",
    "place_start_knight": "setup",
    "place_king": "setup",
    "keep_card": "keep_card",
    "move_king": "move_king",
}

_CARD_FIELDS: Final = {
    "block_under_knight": frozenset({"at", "stack"}),
    "extra_block": frozenset({"at"}),
    "six_ap": frozenset(),
    "seven_ap": frozenset(),
}
_MOVE_FIELDS: Final = frozenset({"from", "to"})


# --- legal actions ---------------------------------------------------------------------------------------------


def legal_actions(state: State) -> list[Action]:
    """Every legal action of the player to move, in a stable order. Where choices are many (spreads, stack
    indices of equal height) the canonical one is listed and `apply` accepts every legal variant."""
    stage = state.stage
    if stage == "turn":
        return _turn_actions(state)
    if stage == "keep_card":
        return list(cards.keep_card_choices(state))
    if stage == "setup":
        step = turns.setup_step(state)
        squares = turns.foundation_squares(state) if step == "place_foundation" else turns.free_foundations(state)
        return [{"type": step, "at": SQUARE_NAMES[sq]} for sq in squares]
    if stage == "move_king":
        out: list[Action] = [{"type": "move_king", "to": None}]
        out.extend({"type": "move_king", "to": SQUARE_NAMES[sq]} for sq in turns.king_squares(state))
        return out
    return []


def _turn_actions(state: State) -> list[Action]:
    seat = state.mover()
    ap_left = state.ap - state.ap_spent
    out: list[Action] = []
    if ap_left >= 1:
        knights, king = state.knights, state.king
        own = state.knight_squares(seat)
        if ap_left >= 2 and len(own) < KNIGHTS_PER_PLAYER:
            place = wire.PLACE_KNIGHT
            out += [place[sq].copy() for sq in moves.placement_squares(state, seat)]
        # moves.knight_destinations and building.build_squares, inlined: this is the engine's hottest loop, and
        # calling them costs 4 % more instructions per game (callgrind, bench/rules_instructions.py)
        castles = state.castles
        for frm in own:
            move = wire.MOVE_KNIGHT[frm]
            out += [move[to].copy() for to in castles.reach(frm) if knights[to] == NO_FIGURE and to != king]
        choices = building.stack_choices(state)
        if choices:
            squares = [sq for sq in castles.build_squares() if knights[sq] == NO_FIGURE and sq != king]
            for i in choices:  # a stock has at most 4 stacks (editions.BLOCK_STOCKS; from_position checks it)
                build = wire.BUILD[i]
                out += [build[sq].copy() for sq in squares]
        if cards.why_not_buy(state) is None:
            out.append({"type": "buy_card"})
        out.append({"type": "advance_track"})
    if not state.card_played and state.hands[seat]:
        for kind in cards.playable_kinds(state):
            out += cards.card_uses(state, kind)
    fixed = building.turn_stack(state)
    for used, spread in _end_turn_choices(state.stacks[seat], fixed, building.spread_is_capped(state)):
        out.append({"type": "end_turn", "stack": used, "spread": list(spread)})
    return out


@lru_cache(maxsize=1024)
def _end_turn_choices(
    stacks: tuple[int, ...], fixed: int | None, capped: bool
) -> tuple[tuple[int, tuple[int, ...]], ...]:
    """(stack used, default spread) of each distinct way to end the turn: a handful of stock shapes recur all game."""
    candidates = [fixed] if fixed is not None else [i for i, h in enumerate(stacks) if h not in stacks[:i]]
    return tuple((used, tuple(building.default_spread(stacks[:used] + stacks[used + 1 :], stacks[used], capped)))
                 for used in candidates)


# --- apply -----------------------------------------------------------------------------------------------------


def apply(state: State, action: object) -> State:
    """The state after `action`; `state` itself is unchanged. Raises IllegalAction naming the broken rule.
    `action` is typed `object`: anything a client sends must arrive here and get an IllegalAction."""
    if not isinstance(action, dict):
        raise IllegalAction("an action is an object with a \"type\"")
    kind = action.get("type")
    if not isinstance(kind, str) or kind not in _FIELDS:
        raise IllegalAction(f"unknown action type {kind!r}: expected one of {', '.join(_FIELDS)}")
    if not action.keys() <= _ALLOWED[kind]:
        extra = set(action) - _ALLOWED[kind]
        raise IllegalAction(f"{kind} has no field {', '.join(sorted(extra))}")
    stage = state.stage
    if stage == "over":
        raise IllegalAction("the game is over: no more actions")
    wanted = _STAGE_OF.get(kind, "turn")
    if wanted != stage:
        raise IllegalAction(_wrong_stage(state, kind))
    if stage == "setup" and turns.setup_step(state) != kind:
        raise IllegalAction(f"setup goes foundations, start knights, king: now is {turns.setup_step(state)}")
    new = state._copy()
    _HANDLERS[kind](new, action)
    return new


def _wrong_stage(state: State, kind: str) -> str:
    if state.stage == "keep_card":
        return "after buy_card from a personal deck the buyer must keep_card before anything else"
    if state.stage == "move_king":
        return "between phases the player furthest behind decides on the king (move_king) first"
    if state.stage == "setup":
        return f"the game is still in setup: {turns.setup_step(state)} is due"
    return f"{kind} is not part of a turn"


def _square(action: Action, field: str) -> int:
    if field not in action:
        raise IllegalAction(f"{action['type']} needs the field {field!r} (a square \"A1\"..\"H8\")")
    sq = parse_square(action[field])
    if sq is None:
        raise IllegalAction(f"{field} must be a square \"A1\"..\"H8\", not {action[field]!r}")
    return sq


def _stack_index(index: object, stacks: tuple[int, ...], what: str) -> int:
    if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(stacks):
        raise IllegalAction(f"{what}: \"stack\" is the index of one of your {len(stacks)} stacks, not {index!r}")
    return index


def _turn_stack(state: State, action: Action, missing: str) -> int:
    """The stack a build or end_turn names, or the turn's stack when it names none: one stack per turn (5.3)."""
    fixed = building.turn_stack(state)
    index = action.get("stack", fixed)
    if index is None:
        raise IllegalAction(missing)
    index = _stack_index(index, state.stacks[state.mover()], "blocks come from your stacks")
    if fixed is not None and index != fixed:
        if state.options.stack_choice == "largest":
            raise IllegalAction(f"this edition uses the largest stack automatically: stack {fixed}")
        raise IllegalAction(f"blocks come from one stack per turn: this turn uses stack {fixed}")
    return index


def _spend(state: State, ap: int, what: str) -> None:
    if state.ap - state.ap_spent < ap:
        raise IllegalAction(f"{what} costs {ap} AP but only {state.ap - state.ap_spent} AP are left this turn")
    state.ap_spent += ap


def _own_knight(state: State, sq: int, what: str) -> None:
    if state.knights[sq] != state.to_move:
        raise IllegalAction(f"{what} needs one of your own knights on {SQUARE_NAMES[sq]}")


# setup --------------------------------------------------------------------------------------------------------


def _place_foundation(state: State, action: Action) -> None:
    sq = _square(action, "at")
    if sq not in turns.foundation_squares(state):
        raise IllegalAction(
            f"a foundation goes on free ground with at least two empty squares to any foundation in its row or "
            f"column{'' if state.options.master_diagonal_foundations else ' and not diagonally next to one'}: "
            f"{SQUARE_NAMES[sq]} is not allowed"
        )
    state.add_block(sq)
    state.supply -= 1
    turns.after_foundation(state)


def _place_start_knight(state: State, action: Action) -> None:
    sq = _square(action, "at")
    if sq not in turns.free_foundations(state):
        raise IllegalAction(f"each player places a start knight on a free foundation: {SQUARE_NAMES[sq]} is not")
    knights = list(state.knights)
    knights[sq] = state.mover()
    state.knights = tuple(knights)
    turns.after_start_knight(state)


def _place_king(state: State, action: Action) -> None:
    sq = _square(action, "at")
    if sq not in turns.free_foundations(state):
        raise IllegalAction(f"the king is placed on a free foundation: {SQUARE_NAMES[sq]} is not")
    state.king = sq
    turns.after_king(state)


# turn ---------------------------------------------------------------------------------------------------------


def _place_knight(state: State, action: Action) -> None:
    sq = _square(action, "at")
    seat = state.mover()
    if moves.reserve(state, seat) == 0:
        raise IllegalAction("all 6 of your knights are on the board: none left to place")
    if sq not in moves.placement_squares(state, seat):
        raise IllegalAction(
            f"a new knight goes on a free square next to one of your knights, at the same or a lower level: "
            f"{SQUARE_NAMES[sq]} is not such a square"
        )
    _spend(state, 2, "placing a knight")
    knights = list(state.knights)
    knights[sq] = seat
    state.knights = tuple(knights)


def _move_knight(state: State, action: Action) -> None:
    frm = _square(action, "from")
    to = _square(action, "to")
    _own_knight(state, frm, "move_knight")
    if to not in moves.knight_destinations(state, frm):
        raise IllegalAction(moves.why_not_move(state, frm, to))
    _spend(state, 1, "a knight's step or gate move")
    cards.move_knight(state, frm, to)


def _build(state: State, action: Action) -> None:
    sq = _square(action, "at")
    stacks = state.stacks[state.mover()]
    index = _turn_stack(state, action, "the first build of a turn chooses its stack: give \"stack\" (an index)")
    if stacks[index] == 0:
        raise IllegalAction(f"stack {index} has no blocks left")
    if not building.may_build(state, sq):
        raise IllegalAction(building.why_not_build(state, sq))
    _spend(state, 1, "building a block")
    state.take_block(state.mover(), index)
    state.stack_chosen = index
    state.add_block(sq)


def _buy_card(state: State, action: Action) -> None:
    reason = cards.why_not_buy(state)
    if reason:
        raise IllegalAction(reason)
    _spend(state, 1, "buying a card")
    state.cards_bought += 1
    seat = state.mover()
    if state.decks is not None:
        deck = state.decks[seat]
        state.seen = deck[:3]
        state.decks = replaced(state.decks, seat, deck[3:])
        state.stage = "keep_card"
    else:
        assert state.deck is not None
        card = state.deck[0]
        state.deck = state.deck[1:]
        _take_card(state, card)


def _take_card(state: State, card: str) -> None:
    seat = state.mover()
    state.hands = replaced(state.hands, seat, tuple(sorted((*state.hands[seat], card))))
    state.bought_this_turn = tuple(sorted((*state.bought_this_turn, card)))


def _keep_card(state: State, action: Action) -> None:
    seen = state.seen or ()
    card = action.get("card")
    if card not in seen:
        raise IllegalAction(f"keep one of the cards you looked at ({', '.join(seen)}), not {card!r}")
    others = cards.remove_one(seen, card)
    rest = action.get("rest", "bottom" if state.options.personal_rest == "bottom" else None)
    if rest not in ("top", "bottom"):
        raise IllegalAction("rest must be \"top\" or \"bottom\": where the other cards go back")
    if rest == "top" and state.options.personal_rest == "bottom":
        raise IllegalAction("in this edition the other cards go back at the bottom of the deck")
    order = action.get("order", list(others))
    if not isinstance(order, list) or any(not isinstance(c, str) for c in order) or sorted(order) != sorted(others):
        raise IllegalAction(f"order lists the other seen cards, top first: {', '.join(others) or 'none'}")
    seat = state.mover()
    decks = state.decks
    assert decks is not None, "keep_card follows a buy from a personal deck only"
    deck = (*order, *decks[seat]) if rest == "top" else (*decks[seat], *order)
    state.decks = replaced(decks, seat, tuple(deck))
    state.seen = None
    state.stage = "turn"
    _take_card(state, card)


def _play_card(state: State, action: Action) -> None:
    card = action.get("card")
    if card not in CARD_KINDS:
        raise IllegalAction(f"card must be one of {', '.join(CARD_KINDS)}, not {card!r}")
    seat = state.mover()
    hand = state.hands[seat]
    if card not in hand:
        raise IllegalAction(f"{card} is not in your hand")
    if state.card_played:
        raise IllegalAction("at most 1 card may be played per turn")
    if card not in cards.playable_kinds(state):
        raise IllegalAction(f"a card bought this turn cannot be played this turn: {card}")
    allowed = _CARD_FIELDS.get(card, _MOVE_FIELDS)
    extra = set(action) - allowed - {"type", "card"}
    if extra:
        raise IllegalAction(f"play_card {card} has no field {', '.join(sorted(extra))}")
    if card in cards.KNIGHT_CARDS:
        frm, to = _square(action, "from"), _square(action, "to")
        reason = cards.why_not_knight_card(state, card, frm, to)
        if reason:
            raise IllegalAction(reason)
        cards.move_knight(state, frm, to)
    elif card == "block_under_knight":
        at = _square(action, "at")
        stacks = state.stacks[seat]
        index = _stack_index(action.get("stack"), stacks, "block_under_knight takes a block from one of your stacks")
        if stacks[index] == 0:
            raise IllegalAction(f"stack {index} has no blocks left")
        if at not in building.block_under_knight_squares(state, seat):
            raise IllegalAction(building.why_not_block_under_knight(state, at))
        state.take_block(seat, index)
        state.add_block(at)
    elif card == "extra_block":
        at = _square(action, "at")
        if state.supply == 0:
            raise IllegalAction("extra_block builds from the general supply, which is empty")
        if not building.may_build(state, at):
            raise IllegalAction(building.why_not_build(state, at))
        state.supply -= 1
        state.add_block(at)
    elif card in ("six_ap", "seven_ap"):
        state.ap = 6 if card == "six_ap" else 7
    else:  # move_block
        frm, to = _square(action, "from"), _square(action, "to")
        if to not in building.move_block_targets(state, frm):
            raise IllegalAction(building.why_not_move_block(state, frm, to))
        state.set_heights(building.with_block(building.with_block(state.heights, frm, -1), to))
    state.hands = replaced(state.hands, seat, cards.remove_one(hand, card))
    state.played = replaced(state.played, seat, (*state.played[seat], card))
    state.card_played = True


def _advance_track(state: State, action: Action) -> None:
    _spend(state, 1, "a step on the score track")
    scores = list(state.scores)
    advance(scores, state.mover())
    state.scores = tuple(scores)


def _end_turn(state: State, action: Action) -> None:
    stacks = state.stacks[state.mover()]
    used = _turn_stack(state, action, "every turn uses up one stack: give \"stack\", the one this turn uses")
    remaining = stacks[:used] + stacks[used + 1 :]
    leftover = stacks[used]
    automatic = building.default_spread(remaining, leftover, building.spread_is_capped(state))
    spread = action.get("spread", automatic)
    if not isinstance(spread, list) or any(not isinstance(v, int) or isinstance(v, bool) for v in spread):
        raise IllegalAction("spread is a list of whole numbers, one per remaining stack")
    if state.options.stack_choice == "largest":
        if spread != automatic:
            raise IllegalAction(f"this edition spreads leftover blocks automatically: {automatic}")
    else:
        reason = building.why_not_spread(remaining, leftover, spread)
        if reason:
            raise IllegalAction(reason)
    turns.end_turn(state, used, spread)


def _move_king(state: State, action: Action) -> None:
    if "to" not in action:
        raise IllegalAction("move_king needs \"to\": a square, or null to leave the king where it stands")
    target = action["to"]
    if target is not None:
        sq = parse_square(target)
        if sq is None:
            raise IllegalAction(f"to must be a square \"A1\"..\"H8\" or null, not {target!r}")
        if sq not in turns.king_squares(state):
            raise IllegalAction(f"the king moves onto a free block of a castle: {SQUARE_NAMES[sq]} is not one")
        state.king = sq
    turns.after_king_move(state)


_HANDLERS: Final = {
    "place_foundation": _place_foundation,
    "place_start_knight": _place_start_knight,
    "place_king": _place_king,
    "place_knight": _place_knight,
    "move_knight": _move_knight,
    "build": _build,
    "buy_card": _buy_card,
    "keep_card": _keep_card,
    "play_card": _play_card,
    "advance_track": _advance_track,
    "end_turn": _end_turn,
    "move_king": _move_king,
}

# --- integer action codes (codes.py) ---------------------------------------------------------------------------


def legal_codes(state: State) -> list[int]:
    """The codes of `legal_actions(state)`, in the same order."""
    return [codes.code_of(action) for action in legal_actions(state)]


def apply_code(state: State, code: int) -> State:
    """`apply` of the action a code stands for; raises IllegalAction for a code not legal here."""
    return apply(state, decode(state, code))


def decode(state: State, code: int) -> Action:
    """The canonical wire form of a code in this position (end_turn gets its default spread)."""
    try:
        action = codes.wire_of(code)
    except codes.NoCode as exc:
        raise IllegalAction(str(exc)) from None
    if action["type"] == "end_turn":
        stacks = state.stacks[state.mover()] if state.stage == "turn" else ()
        used = action["stack"]
        if used < len(stacks):
            action["spread"] = building.default_spread(stacks[:used] + stacks[used + 1 :], stacks[used],
                                                       building.spread_is_capped(state))
    return action


def encode(state: State, action: object) -> int:
    """The code of a legal action. Variants `apply` accepts that mean a listed action (build/end_turn without
    "stack" once the turn's stack is fixed, keep_card without "rest" where only the bottom is allowed, or
    without "order") get the listed action's code; an illegal action, and a legal variant no code stands for
    (end_turn with another spread, a later stack of the same height as a listed one), raise IllegalAction."""
    if not isinstance(action, dict):
        raise IllegalAction("an action is an object with a \"type\"")
    canonical = dict(action)
    kind = canonical.get("type")
    if kind in ("build", "end_turn") and "stack" not in canonical and state.stage == "turn":
        canonical["stack"] = building.turn_stack(state)
    if kind == "keep_card" and state.stage == "keep_card":
        if "rest" not in canonical and state.options.personal_rest == "bottom":
            canonical["rest"] = "bottom"
        seen = state.seen or ()
        if "order" not in canonical and canonical.get("card") in seen:
            canonical["order"] = list(cards.remove_one(seen, canonical["card"]))
    try:
        code = codes.code_of(canonical)
    except codes.NoCode as exc:
        apply(state, action)  # raises the rule's IllegalAction if the action is illegal
        raise IllegalAction(f"no action code stands for {action!r}: {exc}") from None
    if code not in legal_codes(state) or (kind == "end_turn" and "spread" in canonical
                                          and canonical["spread"] != decode(state, code)["spread"]):
        apply(state, action)
        raise IllegalAction(f"{action!r} is legal but no action code stands for it (codes.py lists which)")
    return code


__all__ = ["NO_FIGURE", "Action", "IllegalAction", "apply", "apply_code", "decode", "encode", "legal_actions",
           "legal_codes"]
